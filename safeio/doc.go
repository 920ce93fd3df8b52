// Package safeio reads untrusted input within bounds and keeps secrets out
// of what roofline prints.
//
// Every file, standard input and HTTP body roofline reads goes through a
// size limit (package limits holds the defaults) with a message naming the
// input and the limit when it is exceeded; special files (devices, FIFOs,
// sockets) are refused where a regular file is expected, so that
// "/dev/zero" or a profile linked to it ends at once instead of filling
// memory.
//
// URLs are redacted before they reach a message, a source field, JSON or a
// report: the user information (user name and password) and every query
// value (tokens, signatures) are replaced by "xxxxx".
package safeio
