"""Writes large brickprof traces for scale tests and measurements, streaming
(no trace held in memory): THREADS threads, each a run of layers of nine
bricks, each brick launching KERNELS kernels on its thread's stream (API
call inside the brick, kernel after it), back to back.

    python3 big_trace.py OUT.json NODES [--kernels K] [--threads T]
"""
import argparse

BRICKS = ["RmsNorm", "QkvProjection", "RopeEmbedding", "AttentionScore", "OutputProjection",
          "GateProjection", "UpProjection", "Activation", "DownProjection"]


def write(path, nodes, kernels=2, threads=4, expected=None):
    """Writes about `nodes` nodes (whole layers). If `expected` is a list,
    appends one (track, start, end, name) per node: track ("thread", tid)
    or ("stream", device, stream); and returns the launch flows as
    [(parent index, kernel index)]."""
    per_layer = 1 + len(BRICKS) * (1 + kernels)
    layers = max(1, nodes // per_layer)
    flows = []
    with open(path, "w") as f:
        f.write('{"schema":"brickprof/1","process":{"pid":4242,"program":"big","host":"gen",'
                '"start_ns":0,"end_ns":0},"devices":[{"id":0,"name":"Test GPU","sm_count":1}],'
                '"threads":[%s],"nodes":[\n' % ",".join(
                    '{"tid":%d,"name":"worker %d"}' % (100 + t, t) for t in range(threads)))
        node = 0
        clock = [1000] * threads
        sep = ""
        for layer in range(layers):
            t = layer % threads
            tid, stream = 100 + t, 10 + t
            start = clock[t]
            layer_id = node
            layer_end = start + 10 + len(BRICKS) * (1010 + 300 * kernels)
            f.write('%s{"id":%d,"kind":"layer","name":"Layer %d","parent":null,"thread":%d,'
                    '"start_ns":%d,"end_ns":%d,"index":%d}'
                    % (sep, node, layer // threads, tid, start, layer_end, layer // threads))
            sep = ",\n"
            if expected is not None:
                expected.append((("thread", tid), start, layer_end, "Layer %d" % (layer // threads)))
            node += 1
            at = start + 5
            for b, name in enumerate(BRICKS):
                brick_id = node
                brick_end = at + 1000 + 300 * kernels
                f.write(',\n{"id":%d,"kind":"brick","name":"%s","parent":%d,"thread":%d,'
                        '"start_ns":%d,"end_ns":%d,"elements":4096}'
                        % (node, name, layer_id, tid, at, brick_end))
                if expected is not None:
                    expected.append((("thread", tid), at, brick_end, name))
                node += 1
                for k in range(kernels):
                    api = at + 100 + 300 * k
                    ks, ke = brick_end + 50 + 400 * k, brick_end + 400 + 400 * k
                    f.write(',\n{"id":%d,"kind":"kernel","name":"k_%s_%d","parent":%d,'
                            '"thread":%d,"start_ns":%d,"end_ns":%d,"device":0,"stream":%d,'
                            '"correlation":%d,"api_start_ns":%d,"api_end_ns":%d,'
                            '"grid":[64,1,1],"block":[256,1,1]}'
                            % (node, name, k, brick_id, tid, ks, ke, stream, node + 1, api,
                               api + 200))
                    if expected is not None:
                        expected.append((("stream", 0, stream), ks, ke, "k_%s_%d" % (name, k)))
                    flows.append((brick_id, node))
                    node += 1
                at = brick_end + 10
            clock[t] = max(layer_end, at + 400 * kernels) + 20
        f.write('\n],"edges":[]}\n')
    return flows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("nodes", type=int)
    ap.add_argument("--kernels", type=int, default=2)
    ap.add_argument("--threads", type=int, default=4)
    o = ap.parse_args()
    write(o.out, o.nodes, o.kernels, o.threads)


if __name__ == "__main__":
    main()
