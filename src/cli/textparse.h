/*
 * textparse.h - text parsing moved into libfloe (include/floe/text.h); this
 * header keeps the CLI's includes working.
 */
#ifndef FLOE_CLI_TEXTPARSE_H
#define FLOE_CLI_TEXTPARSE_H

#include "floe/text.h"

#endif
