/*
 * version.c - protocol version negotiation (MCP lifecycle, "Version
 * negotiation"): the client proposes one; the server answers it when it
 * speaks it, else the newest it speaks, and the client decides whether to
 * go on.
 */
#include <string.h>

#include "mcp/mcp_internal.h"

static const char *const versions[] = {"2025-11-25", "2025-06-18", NULL};

const char *const *fl_mcp_protocol_versions(void)
{
    return versions;
}

bool mcp_version_known(const char *v)
{
    for (int i = 0; v && versions[i]; i++)
        if (!strcmp(v, versions[i]))
            return true;
    return false;
}

const char *mcp_version_negotiate(const char *asked)
{
    for (int i = 0; asked && versions[i]; i++)
        if (!strcmp(asked, versions[i]))
            return versions[i];
    return versions[0];
}
