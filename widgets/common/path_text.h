#pragma once

// A file-system path (bytes) as editable text and back, for path fields such as
// the dataset path in the side panel.
//
// Linux file names are bytes; QString needs Unicode. Qt 6 decodes a name that is
// not UTF-8 with one U+FFFD per bad byte, in QFile::decodeName and in what
// QFileDialog returns, and QFile::encodeName cannot bring the bytes back, so
// `text().toStdString()` names a file that does not exist. These two functions
// make the path survive the trip: bad bytes are shown as `\xHH` (as in every
// LoaderLab output), and when text comes back, `\xHH` and the U+FFFD that a
// file dialog produced are resolved to the bytes on disk.

#include <QString>

#include <string>

namespace loaderlab {

// The path as text: valid UTF-8 as is, each other byte as `\xHH`.
QString pathToText(const std::string &path);

// The path bytes for `text`:
// - text that names an existing file as typed is taken as typed;
// - otherwise `\xHH` (HH 80..FF) escapes are turned back into bytes;
// - a component still holding U+FFFD (a file dialog's answer) is replaced by the
//   one entry of its directory whose decoded name matches it, if exactly one does.
// A path found in no form is returned with its escapes turned into bytes, so
// that saving it writes the same text again.
std::string pathFromText(const QString &text);

} // namespace loaderlab
