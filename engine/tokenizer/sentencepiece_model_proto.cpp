#include "engine/tokenizer/sentencepiece_model_proto.h"

#include <bit>
#include <cstring>

#include "engine/common/error.h"

namespace draftbench {
namespace {

// Protobuf wire types (encoding.md): the low three bits of every field tag.
enum class WireType : uint32_t { varint = 0, fixed64 = 1, length_delimited = 2, fixed32 = 5 };

// Field numbers from sentencepiece_model.proto.
namespace model_field {
constexpr uint32_t pieces = 1, trainer_spec = 2, normalizer_spec = 3;
}
namespace piece_field {
constexpr uint32_t piece = 1, score = 2, type = 3;
}
namespace trainer_field {
constexpr uint32_t model_type = 3, byte_fallback = 35;
constexpr uint32_t unk_id = 40, bos_id = 41, eos_id = 42, pad_id = 43;
constexpr uint32_t unk_piece = 45, bos_piece = 46, eos_piece = 47, pad_piece = 48;
}  // namespace trainer_field
namespace normalizer_field {
constexpr uint32_t name = 1, precompiled_charsmap = 2, add_dummy_prefix = 3;
constexpr uint32_t remove_extra_whitespaces = 4, escape_whitespaces = 5;
}  // namespace normalizer_field

static_assert(std::endian::native == std::endian::little, "protobuf fixed32 fields are little-endian; this writer copies floats as-is");

class ProtoWriter {
 public:
  void varint_field(uint32_t field, uint64_t value) {
    tag(field, WireType::varint);
    varint(value);
  }
  // int32 fields are sign-extended to 64 bits on the wire, so -1 takes ten bytes.
  void int32_field(uint32_t field, int32_t value) { varint_field(field, static_cast<uint64_t>(static_cast<int64_t>(value))); }
  void bool_field(uint32_t field, bool value) { varint_field(field, value ? 1 : 0); }
  void float_field(uint32_t field, float value) {
    tag(field, WireType::fixed32);
    char bytes[4];
    std::memcpy(bytes, &value, 4);
    out_.append(bytes, 4);
  }
  void bytes_field(uint32_t field, std::string_view value) {
    tag(field, WireType::length_delimited);
    varint(value.size());
    out_.append(value);
  }
  std::string take() { return std::move(out_); }

 private:
  void tag(uint32_t field, WireType type) { varint((static_cast<uint64_t>(field) << 3) | static_cast<uint32_t>(type)); }
  void varint(uint64_t value) {
    while (value >= 0x80) {
      out_.push_back(static_cast<char>((value & 0x7F) | 0x80));
      value >>= 7;
    }
    out_.push_back(static_cast<char>(value));
  }
  std::string out_;
};

// Reads one message's fields in order; every read is bounds-checked and a malformed
// message throws InputError naming the source and the message being read.
class ProtoReader {
 public:
  ProtoReader(std::string_view bytes, std::string_view source, std::string_view message) : bytes_(bytes), source_(source), message_(message) {}

  bool at_end() const { return pos_ == bytes_.size(); }

  // Returns the field number and leaves the wire type in `type`.
  uint32_t next_field(WireType& type) {
    const uint64_t key = varint();
    const uint64_t field = key >> 3;
    const uint32_t wire = static_cast<uint32_t>(key & 7);
    if (field == 0 || field > 0x1FFFFFFF) fail("field number " + std::to_string(field) + " is out of range");
    if (wire != 0 && wire != 1 && wire != 2 && wire != 5) {
      fail("field " + std::to_string(field) + " has unsupported wire type " + std::to_string(wire));
    }
    type = static_cast<WireType>(wire);
    return static_cast<uint32_t>(field);
  }

  uint64_t varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= bytes_.size()) fail("truncated varint");
      const auto byte = static_cast<uint8_t>(bytes_[pos_++]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    fail("varint longer than 10 bytes");
  }

  float fixed32_float() {
    if (bytes_.size() - pos_ < 4) fail("truncated fixed32");
    float value;
    std::memcpy(&value, bytes_.data() + pos_, 4);
    pos_ += 4;
    return value;
  }

  std::string_view length_delimited() {
    const uint64_t size = varint();
    if (size > bytes_.size() - pos_) {
      fail("length " + std::to_string(size) + " runs past the end (" + std::to_string(bytes_.size() - pos_) + " bytes left)");
    }
    std::string_view value = bytes_.substr(pos_, size);
    pos_ += size;
    return value;
  }

  void skip(WireType type) {
    switch (type) {
      case WireType::varint: varint(); return;
      case WireType::fixed64:
        if (bytes_.size() - pos_ < 8) fail("truncated fixed64");
        pos_ += 8;
        return;
      case WireType::length_delimited: length_delimited(); return;
      case WireType::fixed32:
        if (bytes_.size() - pos_ < 4) fail("truncated fixed32");
        pos_ += 4;
        return;
    }
  }

  // Typed reads that first check the wire type the schema requires.
  uint64_t expect_varint(uint32_t field, WireType type) {
    expect(field, type, WireType::varint);
    return varint();
  }
  int32_t expect_int32(uint32_t field, WireType type) { return static_cast<int32_t>(static_cast<uint32_t>(expect_varint(field, type))); }
  float expect_float(uint32_t field, WireType type) {
    expect(field, type, WireType::fixed32);
    return fixed32_float();
  }
  std::string_view expect_bytes(uint32_t field, WireType type) {
    expect(field, type, WireType::length_delimited);
    return length_delimited();
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(source_, "not a SentencePiece model (parse failed)", std::string(message_) + " at byte " + std::to_string(pos_) + ": " + problem);
  }

 private:
  void expect(uint32_t field, WireType got, WireType wanted) const {
    if (got != wanted) {
      fail("field " + std::to_string(field) + " has wire type " + std::to_string(static_cast<uint32_t>(got)) + ", expected " +
           std::to_string(static_cast<uint32_t>(wanted)));
    }
  }

  std::string_view bytes_;
  std::string_view source_;
  std::string_view message_;
  size_t pos_ = 0;
};

SentencePiecePiece parse_piece(std::string_view bytes, std::string_view source) {
  ProtoReader reader(bytes, source, "ModelProto.pieces");
  SentencePiecePiece piece;
  while (!reader.at_end()) {
    WireType type;
    const uint32_t field = reader.next_field(type);
    switch (field) {
      case piece_field::piece: piece.piece = reader.expect_bytes(field, type); break;
      case piece_field::score: piece.score = reader.expect_float(field, type); break;
      case piece_field::type: {
        const int32_t value = reader.expect_int32(field, type);
        if (value < 1 || value > 6) reader.fail("piece type " + std::to_string(value) + " is not 1..6");
        piece.type = static_cast<SentencePieceType>(value);
        break;
      }
      default: reader.skip(type);
    }
  }
  return piece;
}

void parse_trainer_spec(std::string_view bytes, std::string_view source, SentencePieceModel& model) {
  ProtoReader reader(bytes, source, "ModelProto.trainer_spec");
  while (!reader.at_end()) {
    WireType type;
    const uint32_t field = reader.next_field(type);
    switch (field) {
      case trainer_field::model_type: {
        const int32_t value = reader.expect_int32(field, type);
        if (value < 1 || value > 4) reader.fail("model_type " + std::to_string(value) + " is not 1..4");
        model.model_type = static_cast<SentencePieceModelType>(value);
        break;
      }
      case trainer_field::byte_fallback: model.byte_fallback = reader.expect_varint(field, type) != 0; break;
      case trainer_field::unk_id: model.unk_id = reader.expect_int32(field, type); break;
      case trainer_field::bos_id: model.bos_id = reader.expect_int32(field, type); break;
      case trainer_field::eos_id: model.eos_id = reader.expect_int32(field, type); break;
      case trainer_field::pad_id: model.pad_id = reader.expect_int32(field, type); break;
      case trainer_field::unk_piece: model.unk_piece = reader.expect_bytes(field, type); break;
      case trainer_field::bos_piece: model.bos_piece = reader.expect_bytes(field, type); break;
      case trainer_field::eos_piece: model.eos_piece = reader.expect_bytes(field, type); break;
      case trainer_field::pad_piece: model.pad_piece = reader.expect_bytes(field, type); break;
      default: reader.skip(type);
    }
  }
}

void parse_normalizer_spec(std::string_view bytes, std::string_view source, SentencePieceModel& model) {
  ProtoReader reader(bytes, source, "ModelProto.normalizer_spec");
  while (!reader.at_end()) {
    WireType type;
    const uint32_t field = reader.next_field(type);
    switch (field) {
      case normalizer_field::name: model.normalizer_name = reader.expect_bytes(field, type); break;
      case normalizer_field::precompiled_charsmap: model.precompiled_charsmap = reader.expect_bytes(field, type); break;
      case normalizer_field::add_dummy_prefix: model.add_dummy_prefix = reader.expect_varint(field, type) != 0; break;
      case normalizer_field::remove_extra_whitespaces: model.remove_extra_whitespaces = reader.expect_varint(field, type) != 0; break;
      case normalizer_field::escape_whitespaces: model.escape_whitespaces = reader.expect_varint(field, type) != 0; break;
      default: reader.skip(type);
    }
  }
}

}  // namespace

std::string serialize_sentencepiece_model(const SentencePieceModel& model) {
  ProtoWriter out;
  for (const SentencePiecePiece& piece : model.pieces) {
    ProtoWriter message;
    message.bytes_field(piece_field::piece, piece.piece);
    message.float_field(piece_field::score, piece.score);
    message.int32_field(piece_field::type, static_cast<int32_t>(piece.type));
    out.bytes_field(model_field::pieces, message.take());
  }

  ProtoWriter trainer;
  trainer.int32_field(trainer_field::model_type, static_cast<int32_t>(model.model_type));
  trainer.bool_field(trainer_field::byte_fallback, model.byte_fallback);
  trainer.int32_field(trainer_field::unk_id, model.unk_id);
  trainer.int32_field(trainer_field::bos_id, model.bos_id);
  trainer.int32_field(trainer_field::eos_id, model.eos_id);
  trainer.int32_field(trainer_field::pad_id, model.pad_id);
  trainer.bytes_field(trainer_field::unk_piece, model.unk_piece);
  trainer.bytes_field(trainer_field::bos_piece, model.bos_piece);
  trainer.bytes_field(trainer_field::eos_piece, model.eos_piece);
  trainer.bytes_field(trainer_field::pad_piece, model.pad_piece);
  out.bytes_field(model_field::trainer_spec, trainer.take());

  ProtoWriter normalizer;
  normalizer.bytes_field(normalizer_field::name, model.normalizer_name);
  if (!model.precompiled_charsmap.empty()) {
    normalizer.bytes_field(normalizer_field::precompiled_charsmap, model.precompiled_charsmap);
  }
  normalizer.bool_field(normalizer_field::add_dummy_prefix, model.add_dummy_prefix);
  normalizer.bool_field(normalizer_field::remove_extra_whitespaces, model.remove_extra_whitespaces);
  normalizer.bool_field(normalizer_field::escape_whitespaces, model.escape_whitespaces);
  out.bytes_field(model_field::normalizer_spec, normalizer.take());

  return out.take();
}

SentencePieceModel parse_sentencepiece_model(std::string_view bytes, std::string_view source) {
  SentencePieceModel model;
  ProtoReader reader(bytes, source, "ModelProto");
  while (!reader.at_end()) {
    WireType type;
    const uint32_t field = reader.next_field(type);
    switch (field) {
      case model_field::pieces: model.pieces.push_back(parse_piece(reader.expect_bytes(field, type), source)); break;
      case model_field::trainer_spec: parse_trainer_spec(reader.expect_bytes(field, type), source, model); break;
      case model_field::normalizer_spec: parse_normalizer_spec(reader.expect_bytes(field, type), source, model); break;
      default: reader.skip(type);
    }
  }
  return model;
}

}  // namespace draftbench
