/* Unit tests for io/faulty.c: each kind of injected fault fires exactly at
 * the Nth operation, and failed writes/closes leave nothing visible. */
#include <stdlib.h>
#include <unistd.h>

#include "floe/io.h"
#include "floe_test.h"
#include "io/faulty.h"

static char root[256];

/* Writes 3 chunks to path; returns the first failure (aborting the output). */
static fl_status write3(fl_fileio *io, const char *path, fl_error *err)
{
    fl_output *o;
    FL_TRY(fl_fileio_create(io, path, FL_CREATE_OVERWRITE, &o, err));
    for (int i = 0; i < 3; i++) {
        fl_status rc = fl_output_write(o, "chunk", 5, err);
        if (rc) {
            fl_output_abort(o);
            return rc;
        }
    }
    return fl_output_close(o, err);
}

static void test_write_faults(void)
{
    fl_error err;
    fl_fileio *local = fl_fileio_local();
    fl_fileio *io = fl_fileio_faulty(local, NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/w.bin", root);
    /* a clean run tells how many operations there are */
    CHECK_OK(write3(io, path, &err), &err);
    fl_fault_counts c;
    fl_faulty_counts(io, &c);
    CHECK_EQ_INT(c.creates, 1);
    CHECK_EQ_INT(c.writes, 3);
    CHECK_EQ_INT(c.closes, 1);
    CHECK_EQ_INT(c.renames, 1);
    CHECK_EQ_INT(c.injected, 0);
    CHECK_OK(fl_fileio_remove(io, path, &err), &err);
    /* each write failure point: error, nothing visible */
    for (uint64_t n = 1; n <= 3; n++) {
        fl_fault_plan plan = {.fail_write_n = n};
        fl_faulty_set_plan(io, &plan);
        CHECK_EQ_INT(write3(io, path, &err), FL_EIO);
        CHECK(strstr(err.msg, "injected") && strstr(err.msg, path));
        CHECK(access(path, F_OK) != 0);
        fl_faulty_counts(io, &c);
        CHECK_EQ_INT(c.injected, 1);
    }
    fl_fault_plan plan = {.fail_close_n = 1, .code = FL_ECONFLICT};
    fl_faulty_set_plan(io, &plan);
    CHECK_EQ_INT(write3(io, path, &err), FL_ECONFLICT);
    CHECK(access(path, F_OK) != 0);
    plan = (fl_fault_plan){.fail_rename_n = 1};
    fl_faulty_set_plan(io, &plan);
    CHECK_EQ_INT(write3(io, path, &err), FL_EIO);
    CHECK(access(path, F_OK) != 0);
    plan = (fl_fault_plan){.fail_create_n = 1};
    fl_faulty_set_plan(io, &plan);
    CHECK_EQ_INT(write3(io, path, &err), FL_EIO);
    /* lost acknowledgement: error reported, but the file is there */
    plan = (fl_fault_plan){.lost_ack_n = 1};
    fl_faulty_set_plan(io, &plan);
    CHECK_EQ_INT(write3(io, path, &err), FL_EIO);
    CHECK(access(path, F_OK) == 0);
    /* second write of the same plan succeeds */
    CHECK_OK(write3(io, path, &err), &err);
    plan = (fl_fault_plan){.fail_remove_n = 1};
    fl_faulty_set_plan(io, &plan);
    CHECK_EQ_INT(fl_fileio_remove(io, path, &err), FL_EIO);
    CHECK(access(path, F_OK) == 0);
    CHECK_OK(fl_fileio_remove(io, path, &err), &err);
    fl_fileio_destroy(io);
    fl_fileio_destroy(local);
}

static void test_read_faults(void)
{
    fl_error err;
    fl_fileio *local = fl_fileio_local();
    fl_fileio *io = fl_fileio_faulty(local, NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/r.bin", root);
    CHECK_OK(write3(io, path, &err), &err);
    fl_fault_plan plan = {.fail_read_n = 2, .short_read_n = 3};
    fl_faulty_set_plan(io, &plan);
    fl_file *f;
    CHECK_OK(fl_fileio_open(io, path, &f, &err), &err);
    CHECK_EQ_INT(f->size, 15);
    char buf[16];
    CHECK_OK(fl_file_read_at(f, 0, buf, 5, &err), &err);
    CHECK(memcmp(buf, "chunk", 5) == 0);
    CHECK_EQ_INT(fl_file_read_at(f, 0, buf, 5, &err), FL_EIO);
    memset(buf, 0, sizeof buf);
    CHECK_EQ_INT(fl_file_read_at(f, 5, buf, 10, &err), FL_EIO);
    CHECK(memcmp(buf, "chunk\0", 6) == 0); /* only the first half arrived */
    CHECK(strstr(err.msg, "short read") != NULL);
    CHECK_OK(fl_file_read_at(f, 10, buf, 5, &err), &err);
    CHECK_EQ_INT(f->bytes_read, 10);
    CHECK_EQ_INT(f->reads, 2);
    fl_file_close(f);
    /* truncation and open failure */
    plan = (fl_fault_plan){.truncate_to = 7, .fail_open_n = 2};
    fl_faulty_set_plan(io, &plan);
    CHECK_OK(fl_fileio_open(io, path, &f, &err), &err);
    CHECK_EQ_INT(f->size, 7);
    CHECK_EQ_INT(fl_file_read_at(f, 5, buf, 5, &err), FL_ECORRUPT);
    fl_file_close(f);
    CHECK_EQ_INT(fl_fileio_open(io, path, &f, &err), FL_EIO);
    fl_fault_counts c;
    fl_faulty_counts(io, &c);
    CHECK_EQ_INT(c.opens, 2);
    CHECK_EQ_INT(c.injected, 1);
    fl_fileio_destroy(io);
    fl_fileio_destroy(local);
}

int main(void)
{
    if (!ft_tmpdir(root, sizeof root, "floe-test-faulty")) {
        perror("mkdtemp");
        return 1;
    }
    TEST_RUN(test_write_faults);
    TEST_RUN(test_read_faults);
    ft_rmtree(root);
    return TEST_EXIT();
}
