// What a scope name is (identify_scope, identify_named): the rules the
// agent interns every site by.
#include "trace/model/bricks.h"

#include <gtest/gtest.h>

namespace brickprof {
namespace {

TEST(IdentifyScope, BricksByIdNameOrAliasGetTheirCanonicalName) {
  for (ScopeIdentity id : {identify_scope(NodeKind::kBrick, BRICKPROF_BRICK_RMS_NORM, ""),
                           identify_scope(NodeKind::kBrick, -1, "rms_norm")}) {
    EXPECT_EQ(id.kind, NodeKind::kBrick);
    EXPECT_EQ(id.brick_id, BRICKPROF_BRICK_RMS_NORM);
    EXPECT_EQ(id.name, "RmsNorm");
    EXPECT_EQ(id.category, Category::kNorm);
    EXPECT_TRUE(id.name_is_static);
  }
}

TEST(IdentifyScope, CustomBricksKeepTheCallersName) {
  ScopeIdentity mine = identify_scope(NodeKind::kBrick, -1, "MyFusedThing");
  EXPECT_EQ(mine.brick_id, -1);
  EXPECT_EQ(mine.name, "MyFusedThing");
  EXPECT_EQ(mine.category, Category::kOther);
  EXPECT_FALSE(mine.name_is_static);
  EXPECT_EQ(identify_scope(NodeKind::kBrick, -1, "AllReduce").category, Category::kCommunication);
  EXPECT_EQ(identify_scope(NodeKind::kBrick, 9999, "x").brick_id, -1);  // not a known id
}

TEST(IdentifyScope, LayersAndScopes) {
  ScopeIdentity layer = identify_scope(NodeKind::kLayer, -1, "Layer 3");
  EXPECT_EQ(layer.name, "Layer");
  EXPECT_TRUE(layer.name_is_static);
  EXPECT_EQ(identify_scope(NodeKind::kScope, -1, "MPI_Send").category, Category::kCommunication);
  ScopeIdentity plain = identify_scope(NodeKind::kScope, -1, "load weights");
  EXPECT_EQ(plain.category, Category::kNone);
  EXPECT_EQ(plain.name, "load weights");
}

TEST(IdentifyNamed, LayerThenBrickThenTheDefault) {
  EXPECT_EQ(identify_named("layers.3", NodeKind::kScope).kind, NodeKind::kLayer);
  ScopeIdentity rope = identify_named("Rope", NodeKind::kScope);
  EXPECT_EQ(rope.kind, NodeKind::kBrick);
  EXPECT_EQ(rope.name, "RopeEmbedding");
  ScopeIdentity other = identify_named("tokenize", NodeKind::kScope);
  EXPECT_EQ(other.kind, NodeKind::kScope);
  EXPECT_EQ(other.name, "tokenize");
}

}  // namespace
}  // namespace brickprof
