/*
 * errcodes.h - the one table of SQLSTATE codes floe raises, in the manner of
 * PostgreSQL's src/backend/utils/errcodes.txt.
 *
 * An error carries its SQLSTATE from where it starts (fl_error_state() in
 * floe/error.h); an error raised without one gets the default of its
 * fl_status (fl_sqlstate_for_status). Every wire that reports errors maps
 * from this table: pgwire's ErrorResponse 'C' field is the code itself, the
 * HTTP /v1/sql status comes from fl_sqlstate_http_status.
 *
 * FL_SQLSTATE_LIST(X) calls X(C name, 5-character code, condition name as
 * PostgreSQL spells it). The list is append-friendly: add a code here before
 * raising it anywhere, keep the codes unique, and spell the condition as
 * PostgreSQL does so that clients' exception tables (psycopg2.errors, JDBC
 * PSQLState) read the same.
 */
#ifndef FLOE_ERRCODES_H
#define FLOE_ERRCODES_H

#include "floe/export.h"

#include <stddef.h>

#include "floe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_SQLSTATE_LIST(X)                                                                        \
    X(SUCCESSFUL_COMPLETION, "00000", "successful_completion")                                     \
    X(PROTOCOL_VIOLATION, "08P01", "protocol_violation")                                           \
    X(FEATURE_NOT_SUPPORTED, "0A000", "feature_not_supported")                                     \
    X(CARDINALITY_VIOLATION, "21000", "cardinality_violation")                                     \
    X(DATA_EXCEPTION, "22000", "data_exception")                                                   \
    X(NUMERIC_VALUE_OUT_OF_RANGE, "22003", "numeric_value_out_of_range")                           \
    X(INVALID_DATETIME_FORMAT, "22007", "invalid_datetime_format")                                 \
    X(DATETIME_FIELD_OVERFLOW, "22008", "datetime_field_overflow")                                 \
    X(DIVISION_BY_ZERO, "22012", "division_by_zero")                                               \
    X(INVALID_PRECEDING_OR_FOLLOWING_SIZE, "22013", "invalid_preceding_or_following_size")         \
    X(INVALID_ARGUMENT_FOR_NTILE, "22014", "invalid_argument_for_ntile_function")                  \
    X(INVALID_ARGUMENT_FOR_NTH_VALUE, "22016", "invalid_argument_for_nth_value_function")          \
    X(INVALID_REGULAR_EXPRESSION, "2201B", "invalid_regular_expression")                           \
    X(INVALID_ROW_COUNT_IN_LIMIT_CLAUSE, "2201W", "invalid_row_count_in_limit_clause")             \
    X(CHARACTER_NOT_IN_REPERTOIRE, "22021", "character_not_in_repertoire")                         \
    X(INVALID_PARAMETER_VALUE, "22023", "invalid_parameter_value")                                 \
    X(INVALID_ESCAPE_SEQUENCE, "22025", "invalid_escape_sequence")                                 \
    X(ARRAY_SUBSCRIPT_ERROR, "2202E", "array_subscript_error")                                     \
    X(INVALID_TABLESAMPLE_ARGUMENT, "2202H", "invalid_tablesample_argument")                       \
    X(INVALID_TEXT_REPRESENTATION, "22P02", "invalid_text_representation")                         \
    X(INVALID_BINARY_REPRESENTATION, "22P03", "invalid_binary_representation")                     \
    X(NOT_NULL_VIOLATION, "23502", "not_null_violation")                                           \
    X(UNIQUE_VIOLATION, "23505", "unique_violation")                                               \
    X(ACTIVE_SQL_TRANSACTION, "25001", "active_sql_transaction")                                   \
    X(READ_ONLY_SQL_TRANSACTION, "25006", "read_only_sql_transaction")                             \
    X(NO_ACTIVE_SQL_TRANSACTION, "25P01", "no_active_sql_transaction")                             \
    X(IN_FAILED_SQL_TRANSACTION, "25P02", "in_failed_sql_transaction")                             \
    X(INVALID_SQL_STATEMENT_NAME, "26000", "invalid_sql_statement_name")                           \
    X(INVALID_AUTHORIZATION_SPECIFICATION, "28000", "invalid_authorization_specification")         \
    X(INVALID_PASSWORD, "28P01", "invalid_password")                                               \
    X(DEPENDENT_OBJECTS_STILL_EXIST, "2BP01", "dependent_objects_still_exist")                     \
    X(INVALID_CURSOR_NAME, "34000", "invalid_cursor_name")                                         \
    X(INVALID_SAVEPOINT_SPECIFICATION, "3B001", "invalid_savepoint_specification")                 \
    X(INVALID_CATALOG_NAME, "3D000", "invalid_catalog_name")                                       \
    X(INVALID_SCHEMA_NAME, "3F000", "invalid_schema_name")                                         \
    X(SERIALIZATION_FAILURE, "40001", "serialization_failure")                                     \
    X(DEADLOCK_DETECTED, "40P01", "deadlock_detected")                                             \
    X(INSUFFICIENT_PRIVILEGE, "42501", "insufficient_privilege")                                   \
    X(SYNTAX_ERROR, "42601", "syntax_error")                                                       \
    X(DUPLICATE_COLUMN, "42701", "duplicate_column")                                               \
    X(AMBIGUOUS_COLUMN, "42702", "ambiguous_column")                                               \
    X(UNDEFINED_COLUMN, "42703", "undefined_column")                                               \
    X(UNDEFINED_OBJECT, "42704", "undefined_object")                                               \
    X(DUPLICATE_OBJECT, "42710", "duplicate_object")                                               \
    X(GROUPING_ERROR, "42803", "grouping_error")                                                   \
    X(DATATYPE_MISMATCH, "42804", "datatype_mismatch")                                             \
    X(WRONG_OBJECT_TYPE, "42809", "wrong_object_type")                                             \
    X(CANNOT_COERCE, "42846", "cannot_coerce")                                                     \
    X(UNDEFINED_FUNCTION, "42883", "undefined_function")                                           \
    X(RESERVED_NAME, "42939", "reserved_name")                                                     \
    X(UNDEFINED_TABLE, "42P01", "undefined_table")                                                 \
    X(UNDEFINED_PARAMETER, "42P02", "undefined_parameter")                                         \
    X(DUPLICATE_CURSOR, "42P03", "duplicate_cursor")                                               \
    X(DUPLICATE_PREPARED_STATEMENT, "42P05", "duplicate_prepared_statement")                       \
    X(DUPLICATE_SCHEMA, "42P06", "duplicate_schema")                                               \
    X(DUPLICATE_TABLE, "42P07", "duplicate_table")                                                 \
    X(INVALID_COLUMN_REFERENCE, "42P10", "invalid_column_reference")                               \
    X(INVALID_CURSOR_DEFINITION, "42P11", "invalid_cursor_definition")                             \
    X(INVALID_OBJECT_DEFINITION, "42P17", "invalid_object_definition")                             \
    X(INVALID_RECURSION, "42P19", "invalid_recursion")                                             \
    X(WINDOWING_ERROR, "42P20", "windowing_error")                                                 \
    X(INSUFFICIENT_RESOURCES, "53000", "insufficient_resources")                                   \
    X(OUT_OF_MEMORY, "53200", "out_of_memory")                                                     \
    X(TOO_MANY_CONNECTIONS, "53300", "too_many_connections")                                       \
    X(PROGRAM_LIMIT_EXCEEDED, "54000", "program_limit_exceeded")                                   \
    X(STATEMENT_TOO_COMPLEX, "54001", "statement_too_complex")                                     \
    X(OBJECT_NOT_IN_PREREQUISITE_STATE, "55000", "object_not_in_prerequisite_state")               \
    X(CANT_CHANGE_RUNTIME_PARAM, "55P02", "cant_change_runtime_param")                             \
    X(QUERY_CANCELED, "57014", "query_canceled")                                                   \
    X(SYSTEM_ERROR, "58000", "system_error")                                                       \
    X(IO_ERROR, "58030", "io_error")                                                               \
    X(UNDEFINED_FILE, "58P01", "undefined_file")                                                   \
    X(INTERNAL_ERROR, "XX000", "internal_error")                                                   \
    X(DATA_CORRUPTED, "XX001", "data_corrupted")

/* FL_SQLSTATE_<C name>: the code's index in the table. */
typedef enum fl_sqlstate_id {
#define FL_SQLSTATE_ENUM_(cname, code, cond) FL_SQLSTATE_##cname,
    FL_SQLSTATE_LIST(FL_SQLSTATE_ENUM_)
#undef FL_SQLSTATE_ENUM_
        FL_SQLSTATE_COUNT
} fl_sqlstate_id;

typedef struct fl_sqlstate_entry {
    const char *cname;     /* "DIVISION_BY_ZERO" */
    const char *code;      /* "22012" */
    const char *condition; /* "division_by_zero" */
} fl_sqlstate_entry;

/* Entry i of the table (i < FL_SQLSTATE_COUNT), else NULL: for iteration. */
FL_API const fl_sqlstate_entry *fl_sqlstate_at(size_t i);

/* The entry of a 5-character code, NULL when floe does not raise it. */
FL_API const fl_sqlstate_entry *fl_sqlstate_find(const char *code);

/* Condition name of a code ("division_by_zero"), NULL when not in the table. */
FL_API const char *fl_sqlstate_name(const char *code);

/* The HTTP status of an error with this SQLSTATE (POST /v1/sql): by class,
 * e.g. 22/42 -> 400, 40 -> 409, 53 -> 503, with a few codes of their own
 * (42501 -> 403, 42P01 -> 404); 500 for anything else. */
FL_API int fl_sqlstate_http_status(const char *code);

/* The SQLSTATE an error of this status has when none was raised with it. */
FL_API const char *fl_sqlstate_for_status(fl_status status);

#ifdef __cplusplus
}
#endif
#endif
