// SentencePiece ModelProto in protobuf wire format, written and read by hand.
//
// Why by hand: Debian's libsentencepiece-dev ships sentencepiece_processor.h but no
// generated ModelProto header, so the only way to hand SentencePiece a vocabulary taken
// from a GGUF file is `SentencePieceProcessor::LoadFromSerializedProto` on bytes we
// produce ourselves. The reader is the inverse, used to pull pieces and flags out of an
// HF directory's tokenizer.model.
//
// Only the fields draftbench needs are modelled (field numbers from
// sentencepiece_model.proto, proto2):
//   ModelProto      1 pieces (repeated SentencePiece), 2 trainer_spec, 3 normalizer_spec
//   SentencePiece   1 piece (string), 2 score (float), 3 type (enum)
//   TrainerSpec     3 model_type, 35 byte_fallback, 40..43 unk/bos/eos/pad id,
//                   45..48 unk/bos/eos/pad piece
//   NormalizerSpec  1 name, 2 precompiled_charsmap, 3 add_dummy_prefix,
//                   4 remove_extra_whitespaces, 5 escape_whitespaces
// Unknown fields are skipped when reading.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace draftbench {

// SentencePiece's piece types (ModelProto.SentencePiece.Type). GGUF's
// tokenizer.ggml.token_type uses the same numbers.
enum class SentencePieceType : int32_t {
  normal = 1,
  unknown = 2,
  control = 3,
  user_defined = 4,
  unused = 5,
  byte = 6,
};

// TrainerSpec.ModelType.
enum class SentencePieceModelType : int32_t { unigram = 1, bpe = 2, word = 3, character = 4 };

struct SentencePiecePiece {
  std::string piece;
  float score = 0.0f;
  SentencePieceType type = SentencePieceType::normal;
};

// The subset of ModelProto draftbench reads and writes. Defaults are proto2's declared
// defaults, so a parsed message that omits a field reads back the value SentencePiece
// itself would assume.
struct SentencePieceModel {
  std::vector<SentencePiecePiece> pieces;

  // TrainerSpec
  SentencePieceModelType model_type = SentencePieceModelType::unigram;
  bool byte_fallback = false;
  int32_t unk_id = 0, bos_id = 1, eos_id = 2, pad_id = -1;
  std::string unk_piece = "<unk>", bos_piece = "<s>", eos_piece = "</s>", pad_piece = "<pad>";

  // NormalizerSpec
  std::string normalizer_name;
  std::string precompiled_charsmap;  // empty = no normalisation rules
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
};

// Serialise every field above (pieces in order, then trainer_spec, then normalizer_spec).
std::string serialize_sentencepiece_model(const SentencePieceModel& model);

// Parse a serialised ModelProto. Throws InputError naming `source` (a file name, used in
// the message only) when the bytes are not well-formed protobuf or a field has the wrong
// wire type.
SentencePieceModel parse_sentencepiece_model(std::string_view bytes, std::string_view source);

}  // namespace draftbench
