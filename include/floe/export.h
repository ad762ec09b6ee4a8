/*
 * export.h - FL_API marks the declarations libfloe.so exports.
 *
 * libfloe is compiled with -fvisibility=hidden: a function is part of the
 * shared library's interface only when a public header (include/floe/)
 * declares it FL_API, so internal helpers of one subsystem (and generic names
 * such as parse_date) never collide with a program that links floe.
 * `nm -D --defined-only libfloe.so` lists only fl_ names
 * (scripts/check-layers.sh checks it). The static library keeps every
 * symbol, for the CLI and the tests.
 */
#ifndef FLOE_EXPORT_H
#define FLOE_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define FL_API __attribute__((visibility("default")))
#else
#define FL_API
#endif

#endif
