// Package atomicfile writes the files and directories roofline's commands
// produce so that nothing is half-written, nothing a user did not ask for
// is replaced, and an interrupted run leaves nothing behind:
//
//   - CheckFile and CheckDir say, before any work, whether an output may be
//     written: absent, or with --force an existing regular file, or a
//     directory roofline wrote before (its marker file lists what it
//     wrote) holding nothing else.
//   - WriteAll writes a set of files to temporary names and renames them
//     into place once every one is written (mode 0644).
//   - NewDir builds an output directory in a partial directory beside it
//     (.DIR.partial-*, mode 0755) and Commit moves it into place; partial
//     directories are removed on SIGINT and SIGTERM, and those of runs
//     killed outright are removed by the next run that writes there.
package atomicfile
