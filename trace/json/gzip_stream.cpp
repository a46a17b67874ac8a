// Deflating a byte stream into gzip (see gzip_stream.h).
#include "trace/json/gzip_stream.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace brickprof {
namespace {

constexpr size_t kBlock = 256 << 10;

const ZlibLibrary& loaded_zlib() {
  std::string why;
  const ZlibLibrary* z = zlib_library(&why);
  if (!z) throw std::runtime_error(why);
  return *z;
}

}  // namespace

GzipStreamBuf::GzipStreamBuf(std::streambuf* sink, int level)
    : zlib_(&loaded_zlib()),
      sink_(sink),
      in_(std::make_unique<char[]>(kBlock)),
      out_(std::make_unique<char[]>(kBlock)) {
  if (zlib_->deflate_init2(&stream_, level, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY,
                           ZLIB_VERSION, static_cast<int>(sizeof(z_stream))) != Z_OK)
    throw std::runtime_error("zlib: cannot start compression");
  open_ = true;
  setp(in_.get(), in_.get() + kBlock);
}

GzipStreamBuf::~GzipStreamBuf() {
  if (open_) zlib_->deflate_end(&stream_);
}

// Compresses the buffered input; with Z_FINISH also the trailer.
void GzipStreamBuf::deflate_input(int flush) {
  stream_.next_in = reinterpret_cast<Bytef*>(pbase());
  stream_.avail_in = static_cast<uInt>(pptr() - pbase());
  int status = Z_OK;
  do {
    stream_.next_out = reinterpret_cast<Bytef*>(out_.get());
    stream_.avail_out = static_cast<uInt>(kBlock);
    status = zlib_->deflate(&stream_, flush);
    if (status == Z_STREAM_ERROR) throw std::runtime_error("zlib: compression failed");
    const auto produced = static_cast<std::streamsize>(kBlock - stream_.avail_out);
    if (produced > 0 && sink_->sputn(out_.get(), produced) != produced)
      throw std::runtime_error("write failed");
  } while (stream_.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
  setp(in_.get(), in_.get() + kBlock);
}

GzipStreamBuf::int_type GzipStreamBuf::overflow(int_type c) {
  deflate_input(Z_NO_FLUSH);
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

std::streamsize GzipStreamBuf::xsputn(const char* data, std::streamsize n) {
  std::streamsize done = 0;
  while (done < n) {
    std::streamsize room = epptr() - pptr();
    if (room == 0) {
      deflate_input(Z_NO_FLUSH);
      room = epptr() - pptr();
    }
    const std::streamsize take = std::min(room, n - done);
    std::memcpy(pptr(), data + done, static_cast<size_t>(take));
    pbump(static_cast<int>(take));
    done += take;
  }
  return n;
}

void GzipStreamBuf::finish() {
  deflate_input(Z_FINISH);
  if (sink_->pubsync() != 0) throw std::runtime_error("write failed");
}

}  // namespace brickprof
