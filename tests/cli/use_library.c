/*
 * use_library.c - a program as a user of libfoldline writes it: only the
 * installed public header, built with the flags `pkg-config --cflags --libs
 * foldline` gives, linked against the installed libfoldline.so
 * (tests/cli/cli_install.sh builds and runs it).
 *
 * Usage: use_library MODEL.pb. Analyses the model with its input bound to
 * [1,32,32,3] and the rewrite passes on, for the GPU with the oneDNN rules,
 * then for the CPU, then with an input binding that names no node, and prints
 * what it got; the script compares the lines with the CLI's figures for the
 * same model.
 */
#include <foldline/foldline.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            unsigned char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: use_library MODEL.pb\n");
        return 2;
    }
    /* The headers and the library agree on the version. */
    printf("version %s %d headers %s %d\n", fl_version(), fl_version_number(), FL_VERSION_STRING,
           FL_VERSION_NUMBER);
    if (fl_version_number() / 1000000 != FL_VERSION_MAJOR) {
        fprintf(stderr, "library major version differs from the headers'\n");
        return 1;
    }
    size_t len = 0;
    unsigned char *model = slurp(argv[1], &len);
    if (!model) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }

    fl_options opt;
    fl_options_init(&opt);
    const int64_t dims[] = {1, 32, 32, 3};
    fl_input_binding in = {.name = "input", .rank = 4, .dims = dims};
    opt.inputs = &in;
    opt.n_inputs = 1;
    opt.passes = "default";
    opt.device = FL_DEVICE_GPU;
    opt.remapper_mode = FL_REMAPPER_ONEDNN;
    fl_report *r = NULL;
    fl_status st = fl_analyze(model, len, &opt, &r);
    if (st != FL_OK) {
        fprintf(stderr, "analyze: %s: %s\n", fl_status_name(st), r ? r->error : "");
        fl_report_free(r);
        free(model);
        return 1;
    }
    printf("format %s nodes %" PRId64 "\n", r->format, r->n_nodes);
    printf("flops %s known %d macs %s\n", r->totals.flops.text, (int)r->totals.flops.known,
           r->totals.macs.text);
    printf("gpu after nodes %" PRId64 " passes %zu\n", r->after.nodes, r->n_passes);
    fl_report_free(r);
    opt.device = FL_DEVICE_CPU;
    st = fl_analyze(model, len, &opt, &r);
    printf("cpu after nodes %" PRId64 "\n", st == FL_OK ? r->after.nodes : -1);
    fl_report_free(r);

    /* An error: the status and the report's one-line message. */
    in.name = "nope";
    st = fl_analyze(model, len, &opt, &r);
    printf("error %s: %s\n", fl_status_name(st), r && r->error ? r->error : "(none)");
    fl_report_free(r);
    free(model);
    return 0;
}
