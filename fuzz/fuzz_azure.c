/*
 * fuzz_azure.c - the Azure Blob parsers of untrusted bytes (src/io): the List
 * Blobs answer (azure_xml.c, on the shared XML reader) and blob locations
 * (azure_path.c: abfss://, abfs://, wasbs://, wasb://, which come from table
 * metadata written by anyone). An error or a result, never a crash, an
 * out-of-bounds read or a leak. Properties checked: a parsed page has a name
 * for every entry, and a parsed location has an account and a container and a
 * prefix no longer than the location.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/azure_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fl_error err;
    azure_list_page p;
    memset(&p, 0, sizeof p);
    if (azure_xml_parse_list((const char *)data, size, &p, &err) == FL_OK)
        for (size_t i = 0; i < p.n; i++)
            if (!p.names[i])
                abort();
    azure_list_page_free(&p);

    char *loc = malloc(size + 1);
    if (!loc)
        return 0;
    memcpy(loc, data, size);
    loc[size] = '\0';
    for (int require_blob = 0; require_blob < 2; require_blob++) {
        azure_path ap;
        memset(&ap, 0, sizeof ap);
        if (azure_parse_path(loc, require_blob, &ap, &err) == FL_OK) {
            if (!ap.account || !ap.container || !ap.blob || ap.prefix_len > strlen(loc))
                abort();
            if (require_blob && !*ap.blob)
                abort();
        }
        azure_path_free(&ap);
    }
    free(loc);
    return 0;
}
