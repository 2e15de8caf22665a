/*
 * test_cli_model.c - the CLI's model file (client/files.c): mapped, never
 * copied; read when it cannot be mapped; a change while mapped is an error
 * naming the file, and a truncation under the mapping (SIGBUS) ends the
 * process with EXIT_IO and a message instead of a crash.
 */
#include "cli.h"
#include "files.h"
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char path[256];

static void write_file(const char *p, const char *text) {
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state) {
    (void)state;
    snprintf(path, sizeof path, "/tmp/fl_cli_model_%d", (int)getpid());
    write_file(path, "0123456789abcdef");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    unlink(path);
    return 0;
}

static void test_regular_file_is_mapped(void **state) {
    (void)state;
    fl_cli_model m;
    char err[512];
    assert_int_equal(fl_cli_model_open(&m, path, err, sizeof err), 0);
    assert_true(m.mapped);
    assert_null(m.owned);
    assert_int_equal(m.len, 16);
    assert_memory_equal(m.bytes, "0123456789abcdef", 16);
    assert_int_equal(fl_cli_model_check(&m, err, sizeof err), 0);
    fl_cli_model_close(&m);
}

static void test_change_while_mapped_fails(void **state) {
    (void)state;
    fl_cli_model m;
    char err[512];
    assert_int_equal(fl_cli_model_open(&m, path, err, sizeof err), 0);
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    fputs("more", f);
    fclose(f);
    assert_int_equal(fl_cli_model_check(&m, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "changed while it was being read (16 bytes when mapped, 20 now)"));
    fl_cli_model_close(&m);
}

static void test_pipe_is_read(void **state) {
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], "abc", 3), 3);
    close(fds[1]);
    char p[64];
    snprintf(p, sizeof p, "/dev/fd/%d", fds[0]);
    fl_cli_model m;
    char err[512];
    assert_int_equal(fl_cli_model_open(&m, p, err, sizeof err), 0);
    assert_false(m.mapped); /* a pipe cannot be mapped: read instead */
    assert_int_equal(m.len, 3);
    assert_memory_equal(m.bytes, "abc", 3);
    assert_int_equal(fl_cli_model_check(&m, err, sizeof err), 0);
    fl_cli_model_close(&m);
    close(fds[0]);
}

static void test_no_mmap_env_reads(void **state) {
    (void)state;
    setenv("FOLDLINE_NO_MMAP", "1", 1);
    fl_cli_model m;
    char err[512];
    assert_int_equal(fl_cli_model_open(&m, path, err, sizeof err), 0);
    unsetenv("FOLDLINE_NO_MMAP");
    assert_false(m.mapped);
    assert_non_null(m.owned);
    assert_memory_equal(m.bytes, "0123456789abcdef", 16);
    fl_cli_model_close(&m);
}

static void test_missing_and_directory(void **state) {
    (void)state;
    fl_cli_model m;
    char err[512];
    assert_int_equal(fl_cli_model_open(&m, "/nonexistent/x.onnx", err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot open '/nonexistent/x.onnx'"));
    assert_int_equal(fl_cli_model_open(&m, "/tmp", err, sizeof err), -1);
    assert_non_null(strstr(err, "Is a directory"));
}

/* Truncated under the mapping: touching a page past the new end is SIGBUS,
 * which ends the process with EXIT_IO and a message naming the file. */
static void test_truncated_under_mapping(void **state) {
    (void)state;
    char big[300];
    snprintf(big, sizeof big, "%s.big", path);
    FILE *f = fopen(big, "wb");
    assert_non_null(f);
    static char page[65536];
    memset(page, 7, sizeof page);
    assert_int_equal(fwrite(page, 1, sizeof page, f), sizeof page);
    fclose(f);
    int errp[2];
    assert_int_equal(pipe(errp), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(errp[1], STDERR_FILENO);
        fl_cli_model m;
        char err[512];
        if (fl_cli_model_open(&m, big, err, sizeof err) != 0) {
            _exit(90);
        }
        if (truncate(big, 0) != 0) {
            _exit(91);
        }
        volatile const unsigned char *p = m.bytes;
        _exit(p[40000] == 7 ? 92 : 93); /* SIGBUS before this */
    }
    close(errp[1]);
    char msg[512] = {0};
    size_t n = 0;
    ssize_t r;
    while (n < sizeof msg - 1 && (r = read(errp[0], msg + n, sizeof msg - 1 - n)) > 0) {
        n += (size_t)r;
    }
    close(errp[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    unlink(big);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), EXIT_IO);
    assert_non_null(strstr(msg, big));
    assert_non_null(strstr(msg, "the file shrank while it was being read"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_regular_file_is_mapped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_change_while_mapped_fails, setup, teardown),
        cmocka_unit_test(test_pipe_is_read),
        cmocka_unit_test_setup_teardown(test_no_mmap_env_reads, setup, teardown),
        cmocka_unit_test(test_missing_and_directory),
        cmocka_unit_test_setup_teardown(test_truncated_under_mapping, setup, teardown),
    };
    return fl_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
