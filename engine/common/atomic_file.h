// Files that are either whole or absent: written under a temporary name, then renamed, so a
// reader (or a resumed run) never sees a half-written manifest, report or rendering; the
// data and the rename are synced to the disk, so a crash cannot leave an empty file either.
#pragma once

#include <string>
#include <string_view>

namespace draftbench {

// Throws InputError naming `path` when it cannot be written.
void write_file_atomically(const std::string& path, std::string_view text);

// Writes all of `text` to the open file `fd` (retrying short writes and EINTR) and fsyncs
// it; false on any failure, with errno saying why. What a durable append or a durable
// replacement writes with.
bool write_all_and_sync(int fd, std::string_view text);

}  // namespace draftbench
