/*
 * reporthtml.c - the page of `foldline report`: summary and symbols, a
 * log-log roofline chart per profile (compute and memory roofs, one mark per
 * costed op before and after the passes), top ops by time and by FLOPs, the
 * pass ledger, the --sweep chart. Self-contained: inline CSS, SVG and a
 * little JS (details of the focused mark); readable without JS (each mark
 * has an SVG <title>, the tables hold the figures), printable, and
 * dark-mode aware (prefers-color-scheme).
 */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Chart geometry (SVG user units). */
#define CW 720.0
#define CH 440.0
#define ML 70.0
#define MR 20.0
#define MT 20.0
#define MB 50.0

static void esc(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static void si(FILE *f, double v) {
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    int k = 0;
    while (fabs(v) >= 1000 && k < 6) {
        v /= 1000;
        k++;
    }
    fprintf(f, k ? "%.4g %s" : "%.4g %s", v, pre[k]);
}

static void time_text(FILE *f, double s) {
    if (s >= 1) {
        fprintf(f, "%.4g s", s);
    } else if (s >= 1e-3) {
        fprintf(f, "%.4g ms", s * 1e3);
    } else if (s >= 1e-6) {
        fprintf(f, "%.4g &#181;s", s * 1e6);
    } else {
        fprintf(f, "%.4g ns", s * 1e9);
    }
}

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<meta name=\"color-scheme\" content=\"light dark\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n";

static const char page_style[] =
    "<style>\n"
    ":root{--fg:#1b1b1b;--bg:#fff;--muted:#666;--grid:#ddd;--roof:#444;--before:#1f6fb2;"
    "--after:#d2691e;--row:#f4f4f4}\n"
    "@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--bg:#16181b;--muted:#a0a0a0;"
    "--grid:#3a3d42;--roof:#c8c8c8;--before:#6cb4ff;--after:#ffa94d;--row:#22252a}}\n"
    "body{font:15px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);"
    "max-width:1100px;margin:0 auto;padding:1em}\n"
    "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid var(--grid);"
    "padding-bottom:.2em;margin-top:1.6em}\n"
    "table{border-collapse:collapse;margin:.5em 0}td,th{padding:.2em .6em;text-align:left;"
    "vertical-align:top}th{border-bottom:1px solid var(--grid)}tr:nth-child(even) "
    "td{background:var(--row)}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "code{font-size:.92em;word-break:break-all}.muted{color:var(--muted)}\n"
    "svg.chart{width:100%;max-width:720px;height:auto;display:block}\n"
    "svg text{fill:var(--fg);font-size:12px}.gridline{stroke:var(--grid);stroke-width:1}\n"
    ".roof{stroke:var(--roof);stroke-width:2;fill:none}.roofl{font-size:11px}\n"
    ".mark{stroke:var(--bg);stroke-width:1;cursor:pointer}.mark.before{fill:var(--before)}"
    ".mark.after{fill:var(--after)}.mark:focus,.mark:hover{stroke:var(--fg);stroke-width:2;"
    "outline:none}\n"
    ".series{fill:none;stroke:var(--before);stroke-width:2}.pt{fill:var(--before)}\n"
    "#tip{min-height:1.5em;font-family:ui-monospace,monospace;font-size:.9em}\n"
    ".legend span{display:inline-block;width:.8em;height:.8em;border-radius:50%;"
    "margin:0 .3em 0 1em}\n"
    "@media print{body{max-width:none;font-size:11pt}#tip{display:none}"
    "section{break-inside:avoid}}\n"
    "</style>\n";

/* Focus or hover on a mark shows its data-* in #tip (the SVG <title>
 * already names it without JS). */
static const char page_script[] =
    "<script>\n"
    "(function(){var tip=document.getElementById('tip');if(!tip)return;\n"
    "function show(e){var m=e.target;if(!m.classList||!m.classList.contains('mark'))return;\n"
    "var d=m.dataset;tip.textContent=d.node+' ('+d.op+', '+d.when+'): FLOPs '+d.flops+"
    "', bytes '+d.bytes+', time '+d.time+' s, '+d.bound+'-bound';}\n"
    "document.addEventListener('focusin',show);document.addEventListener('mouseover',show);"
    "})();\n"
    "</script>\n";

/* ------------------------------------------------------------------------- */
/* Summary                                                                    */
/* ------------------------------------------------------------------------- */

static void count_cell(FILE *f, const fl_quantity *q) {
    fputs("<td class=\"n\">", f);
    if (q->known) {
        si(f, (double)q->value);
        fprintf(f, " <span class=\"muted\">(%" PRId64 ")</span>", q->value);
    } else {
        fputs("<code>", f);
        esc(f, q->text);
        fputs("</code>", f);
    }
    fputs("</td>", f);
}

static void totals_row(FILE *f, const char *label, const fl_quantity *a, const fl_quantity *b) {
    fprintf(f, "<tr><th scope=\"row\">%s</th>", label);
    count_cell(f, a);
    if (b) {
        count_cell(f, b);
    }
    fputs("</tr>\n", f);
}

static void summary(FILE *f, const fl_html_report *h, const fl_report *r) {
    fputs("<section id=\"summary\"><h2>Summary</h2>\n<p>", f);
    esc(f, r->format);
    fprintf(f, ", %" PRId64 " %s, %" PRId64 " parameters", r->n_nodes,
            strcmp(r->format, "onnx") == 0 ? "operators" : "nodes", r->params);
    if (r->producer_name) {
        fputs(", producer ", f);
        esc(f, r->producer_name);
    }
    fputs(".</p>\n", f);
    if (h->main_binding) {
        fputs("<p>Figures at <code>", f);
        esc(f, h->main_binding);
        fputs("</code>, the first value of the sweep below.</p>\n", f);
    }
    if (!r->complete) {
        fprintf(f,
                "<p><strong>Partial:</strong> the totals leave out the FLOPs of %" PRId64
                " of %" PRId64 " nodes.</p>\n",
                r->nodes_excluded, r->n_nodes);
    }
    fputs("<table><tr><th></th><th>graph as given</th>", f);
    fputs(r->optimized ? "<th>after the passes</th></tr>\n" : "</tr>\n", f);
    const fl_totals *b = r->optimized ? &r->after : NULL;
    totals_row(f, "FLOPs", &r->totals.flops, b ? &b->flops : NULL);
    totals_row(f, "MACs", &r->totals.macs, b ? &b->macs : NULL);
    totals_row(f, "bytes", &r->totals.bytes, b ? &b->bytes : NULL);
    fprintf(f, "<tr><th scope=\"row\">nodes</th><td class=\"n\">%" PRId64 "</td>", r->totals.nodes);
    if (b) {
        fprintf(f, "<td class=\"n\">%" PRId64 "</td>", b->nodes);
    }
    fputs("</tr></table>\n<table><tr><th>input</th><th>type</th><th>shape</th></tr>\n", f);
    for (size_t i = 0; i < r->n_inputs; i++) {
        fputs("<tr><td><code>", f);
        esc(f, r->inputs[i].name);
        fputs("</code></td><td>", f);
        esc(f, r->inputs[i].dtype);
        fputs("</td><td><code>", f);
        esc(f, r->inputs[i].shape);
        fputs("</code></td></tr>\n", f);
    }
    fputs("</table>\n<p>Symbols: ", f);
    for (size_t i = 0; i < r->n_symbols; i++) {
        fputs(i ? ", <code>" : "<code>", f);
        esc(f, r->symbols[i]);
        fputs("</code>", f);
    }
    fputs(r->n_symbols ? " (free: the counts are formulas in them).</p>\n"
                       : "none (every count is a number).</p>\n",
          f);
    fputs("</section>\n", f);
}

/* ------------------------------------------------------------------------- */
/* Roofline chart                                                             */
/* ------------------------------------------------------------------------- */

typedef struct axes {
    double x0, x1, y0, y1; /* log10 bounds */
} axes;

static double ax_x(const axes *a, double v) {
    return ML + (log10(v) - a->x0) / (a->x1 - a->x0) * (CW - ML - MR);
}

static double ax_y(const axes *a, double v) {
    return CH - MB - (log10(v) - a->y0) / (a->y1 - a->y0) * (CH - MT - MB);
}

/* Whether an op is drawn: it has FLOPs, bytes and a time. */
static bool drawable(const fl_roofline_node *n) {
    return n->flops > 0 && n->bytes > 0 && n->time_s > 0;
}

static void widen(double *lo, double *hi, double v) {
    if (v > 0 && isfinite(v)) {
        *lo = fmin(*lo, v);
        *hi = fmax(*hi, v);
    }
}

/* The highest compute peak of the profile (matrix or vector, any precision
 * the ops use is not known here: the largest fp32, else the largest). */
static double peak_of(const fl_profile *p, int unit) {
    double v = p->peak[unit][FL_PREC_FP32].value;
    for (int k = 0; v <= 0 && k < FL_PREC_COUNT; k++) {
        v = fmax(v, p->peak[unit][k].value);
    }
    return v;
}

static axes chart_axes(const fl_roofline_result *rr, const fl_profile *p) {
    double xl = INFINITY, xh = 0, yl = INFINITY, yh = 0;
    const fl_roofline_graph *gs[2] = {rr->before, rr->after};
    for (int g = 0; g < 2; g++) {
        for (size_t i = 0; gs[g] && i < gs[g]->n_nodes; i++) {
            const fl_roofline_node *n = &gs[g]->nodes[i];
            if (drawable(n)) {
                widen(&xl, &xh, n->flops / n->bytes);
                widen(&yl, &yh, n->flops / n->time_s);
            }
        }
    }
    for (int u = 0; p && u < FL_UNIT_COUNT; u++) {
        widen(&yl, &yh, peak_of(p, u));
        for (size_t l = 0; l < p->n_levels && peak_of(p, u) > 0; l++) {
            widen(&xl, &xh, peak_of(p, u) / p->levels[l].bandwidth); /* ridge points */
        }
    }
    axes a = {floor(log10(xl)) - 0.5, ceil(log10(xh)) + 0.5, floor(log10(yl)), ceil(log10(yh))};
    if (a.y1 - a.y0 < 1) {
        a.y1 = a.y0 + 1;
    }
    return a;
}

static void chart_grid(FILE *f, const axes *a) {
    for (int k = (int)ceil(a->x0); k <= (int)floor(a->x1); k++) {
        double x = ax_x(a, pow(10, k));
        fprintf(f,
                "<line class=\"gridline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">1e%d</text>\n",
                x, MT, x, CH - MB, x, CH - MB + 16, k);
    }
    for (int k = (int)ceil(a->y0); k <= (int)floor(a->y1); k++) {
        double y = ax_y(a, pow(10, k));
        fprintf(f,
                "<line class=\"gridline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n",
                ML, y, CW - MR, y, ML - 6, y + 4, k);
    }
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">arithmetic intensity "
            "(FLOP/byte)</text>\n<text transform=\"translate(16 %.1f) rotate(-90)\" "
            "text-anchor=\"middle\">attained FLOP/s</text>\n",
            (ML + CW - MR) / 2, CH - 12, (MT + CH - MB) / 2);
}

/* The roofs: per unit, the compute peak; per memory level, bandwidth x
 * intensity; drawn as min(peak, bandwidth x intensity). */
static void chart_roofs(FILE *f, const axes *a, const fl_profile *p) {
    for (int u = 0; u < FL_UNIT_COUNT; u++) {
        double peak = peak_of(p, u);
        if (peak <= 0) {
            continue;
        }
        for (size_t l = 0; l < p->n_levels; l++) {
            double bw = p->levels[l].bandwidth, ridge = peak / bw;
            double xs = pow(10, a->x0), ys = bw * xs;
            if (ys < pow(10, a->y0)) {
                xs = pow(10, a->y0) / bw;
                ys = pow(10, a->y0);
            }
            fprintf(f,
                    "<polyline class=\"roof\" data-roof=\"%s %s\" points=\"%.1f,%.1f %.1f,%.1f "
                    "%.1f,%.1f\"/>\n",
                    fl_unit_name((fl_unit)u), p->levels[l].name, ax_x(a, xs), ax_y(a, ys),
                    ax_x(a, ridge), ax_y(a, peak), CW - MR, ax_y(a, peak));
            if (l + 1 == p->n_levels) {
                fprintf(f, "<text class=\"roofl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s ",
                        CW - MR - 4, ax_y(a, peak) - 5, fl_unit_name((fl_unit)u));
                si(f, peak);
                fputs("FLOP/s</text>\n", f);
            }
        }
    }
    for (size_t l = 0; l < p->n_levels; l++) {
        double bw = p->levels[l].bandwidth, x = pow(10, a->x0 + 0.3);
        fprintf(f, "<text class=\"roofl\" x=\"%.1f\" y=\"%.1f\">", ax_x(a, x) + 4,
                ax_y(a, fmax(bw * x, pow(10, a->y0))) - 6);
        esc(f, p->levels[l].name);
        fputc(' ', f);
        si(f, bw);
        fputs("B/s</text>\n", f);
    }
}

static void chart_marks(FILE *f, const axes *a, const fl_roofline_graph *g, const char *when) {
    for (size_t i = 0; g && i < g->n_nodes; i++) {
        const fl_roofline_node *n = &g->nodes[i];
        if (!drawable(n)) {
            continue;
        }
        double x = ax_x(a, n->flops / n->bytes), y = ax_y(a, n->flops / n->time_s);
        fprintf(f, "<circle class=\"mark %s\" tabindex=\"0\" r=\"%s\" cx=\"%.1f\" cy=\"%.1f\"",
                when, strcmp(when, "before") == 0 ? "5" : "3.5", x, y);
        fputs(" data-node=\"", f);
        esc(f, n->name);
        fputs("\" data-op=\"", f);
        esc(f, n->op);
        fprintf(f,
                "\" data-when=\"%s\" data-flops=\"%.17g\" data-bytes=\"%.17g\" data-time=\"%.6g\" "
                "data-bound=\"%s\"><title>",
                when, n->flops, n->bytes, n->time_s, n->bound);
        esc(f, n->name);
        fputs(" (", f);
        esc(f, n->op);
        fprintf(f, ", %s): %.17g FLOPs, %.17g bytes, %.6g s, %s-bound</title></circle>\n", when,
                n->flops, n->bytes, n->time_s, n->bound);
    }
}

static size_t count_drawable(const fl_roofline_graph *g) {
    size_t n = 0;
    for (size_t i = 0; g && i < g->n_nodes; i++) {
        n += drawable(&g->nodes[i]);
    }
    return n;
}

static void roofline_chart(FILE *f, const fl_roofline_result *rr, const fl_profile *p) {
    size_t nb = count_drawable(rr->before), na = count_drawable(rr->after);
    fputs("<figure class=\"roofline\" data-profile=\"", f);
    esc(f, rr->profile);
    fputs("\"><figcaption><strong>", f);
    esc(f, rr->profile);
    fputs("</strong>: estimated ", f);
    time_text(f, rr->before->time_s);
    if (rr->after) {
        fputs(" as given, ", f);
        time_text(f, rr->after->time_s);
        fputs(" after the passes", f);
    }
    fprintf(f, "%s. %zu op(s) drawn as given, %zu after; ops with no FLOPs or no bytes are not.",
            rr->before->calibrated ? " (calibrated profile)"
                                   : " (peak figures: a lower bound on time)",
            nb, na);
    if (rr->before->gap_share > 0) {
        fputs(" Of it, ", f);
        time_text(f, rr->before->gap_s);
        fprintf(f,
                " is the run's gap: the run's time beyond its kernels, %.3g %% of their time "
                "(the profile's <code>gap</code>; source: ",
                100 * rr->before->gap_share);
        esc(f, rr->before->gap_source ? rr->before->gap_source : "");
        fputs(").", f);
    }
    fputs("</figcaption>\n", f);
    if (nb + na == 0) {
        fputs("<p class=\"empty\">No costed op with both FLOPs and bytes: nothing to draw on "
              "a roofline.</p></figure>\n",
              f);
        return;
    }
    axes a = chart_axes(rr, p);
    fprintf(f,
            "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"roofline "
            "on ",
            CW, CH);
    esc(f, rr->profile);
    fputs("\">\n", f);
    chart_grid(f, &a);
    if (p) {
        chart_roofs(f, &a, p);
    }
    chart_marks(f, &a, rr->before, "before");
    chart_marks(f, &a, rr->after, "after");
    fputs("</svg>\n<p class=\"legend\"><span style=\"background:var(--before)\"></span>as given"
          "<span style=\"background:var(--after)\"></span>after the passes</p>\n",
          f);
    if (!p) {
        fputs("<p class=\"muted\">The server resolved this profile: its roofs are not "
              "drawn.</p>\n",
              f);
    }
    fputs("</figure>\n", f);
}

/* ------------------------------------------------------------------------- */
/* Tables                                                                     */
/* ------------------------------------------------------------------------- */

static int by_time(const void *x, const void *y) {
    const fl_roofline_node *a = *(const fl_roofline_node *const *)x;
    const fl_roofline_node *b = *(const fl_roofline_node *const *)y;
    return a->time_s < b->time_s ? 1 : a->time_s > b->time_s ? -1 : strcmp(a->name, b->name);
}

static int by_flops(const void *x, const void *y) {
    const fl_report_node *a = *(const fl_report_node *const *)x;
    const fl_report_node *b = *(const fl_report_node *const *)y;
    int64_t fa = a->flops.known ? a->flops.value : -1, fb = b->flops.known ? b->flops.value : -1;
    return fa < fb ? 1 : fa > fb ? -1 : strcmp(a->name, b->name);
}

static void top_by_time(FILE *f, const fl_roofline_result *rr) {
    const fl_roofline_graph *g = rr->before;
    const fl_roofline_node **v = calloc(g->n_nodes + 1, sizeof(*v));
    if (!v) {
        return;
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        v[i] = &g->nodes[i];
    }
    qsort(v, g->n_nodes, sizeof(*v), by_time);
    fputs("<h3>Top ops by time on ", f);
    esc(f, rr->profile);
    fputs("</h3>\n<table class=\"top-time\"><tr><th>node</th><th>op</th><th>time</th>"
          "<th>FLOPs</th><th>bytes</th><th>bound</th></tr>\n",
          f);
    for (size_t i = 0; i < g->n_nodes && i < 10 && v[i]->time_s > 0; i++) {
        fputs("<tr><td><code>", f);
        esc(f, v[i]->name);
        fputs("</code></td><td>", f);
        esc(f, v[i]->op);
        fputs("</td><td class=\"n\">", f);
        time_text(f, v[i]->time_s);
        fputs("</td><td class=\"n\">", f);
        si(f, v[i]->flops);
        fputs("</td><td class=\"n\">", f);
        si(f, v[i]->bytes);
        fprintf(f, "</td><td>%s</td></tr>\n", v[i]->bound);
    }
    fputs("</table>\n", f);
    free(v);
}

static void top_by_flops(FILE *f, const fl_report *r) {
    const fl_report_node **v = calloc(r->n_nodes_detail + 1, sizeof(*v));
    if (!v) {
        return;
    }
    for (size_t i = 0; i < r->n_nodes_detail; i++) {
        v[i] = &r->nodes[i];
    }
    qsort(v, r->n_nodes_detail, sizeof(*v), by_flops);
    fputs("<h3>Top ops by FLOPs</h3>\n<table class=\"top-flops\"><tr><th>node</th><th>op</th>"
          "<th>FLOPs</th><th>MACs</th><th>bytes</th></tr>\n",
          f);
    for (size_t i = 0; i < r->n_nodes_detail && i < 10; i++) {
        if (v[i]->flops.known && v[i]->flops.value == 0) {
            break;
        }
        fputs("<tr><td><code>", f);
        esc(f, v[i]->name);
        fputs("</code></td><td>", f);
        esc(f, v[i]->op);
        fputs("</td>", f);
        count_cell(f, &v[i]->flops);
        count_cell(f, &v[i]->macs);
        count_cell(f, &v[i]->bytes);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    free(v);
}

static void ledger(FILE *f, const fl_report *r) {
    fputs("<section id=\"ledger\"><h2>Rewrite passes</h2>\n", f);
    if (!r->optimized) {
        fputs("<p>The passes did not run (--passes none).</p></section>\n", f);
        return;
    }
    fputs("<table><tr><th>pass</th><th>iteration</th><th>removed</th><th>added</th>"
          "<th>rewritten</th><th>FLOPs after</th><th>rule firings</th></tr>\n",
          f);
    for (size_t i = 0; i < r->n_passes; i++) {
        const fl_report_pass *p = &r->passes[i];
        fputs("<tr><td>", f);
        esc(f, p->pass);
        fprintf(f,
                "</td><td class=\"n\">%d</td><td class=\"n\">%" PRId64
                "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64 "</td>",
                p->iteration, p->nodes_removed, p->nodes_added, p->nodes_rewritten);
        count_cell(f, &p->after.flops);
        fprintf(f, "<td class=\"n\">%zu%s</td></tr>\n", p->n_entries, p->failed ? " (failed)" : "");
    }
    fprintf(f, "</table>\n<details%s><summary>%zu rule firing(s)</summary>\n<table>",
            r->n_ledger <= 40 ? " open" : "", r->n_ledger);
    fputs("<tr><th>pass</th><th>rule</th><th>node</th><th>what</th></tr>\n", f);
    for (size_t i = 0; i < r->n_ledger; i++) {
        const fl_report_ledger_entry *e = &r->ledger[i];
        fputs("<tr><td>", f);
        esc(f, e->pass);
        fputs("</td><td>", f);
        esc(f, e->rule);
        fputs("</td><td><code>", f);
        esc(f, e->node);
        fputs("</code></td><td>", f);
        esc(f, e->detail);
        fputs("</td></tr>\n", f);
    }
    fputs("</table></details></section>\n", f);
}

/* ------------------------------------------------------------------------- */
/* Sweep                                                                      */
/* ------------------------------------------------------------------------- */

/* One small chart: y(value) for each sweep point; linear axes from 0. */
static void sweep_chart(FILE *f, const fl_html_report *h, const char *label, const double *ys) {
    double xmax = 0, ymax = 0;
    for (size_t i = 0; i < h->n_sweep; i++) {
        xmax = fmax(xmax, (double)h->sweep[i].value);
        ymax = fmax(ymax, ys[i]);
    }
    xmax = xmax > 0 ? xmax : 1;
    ymax = ymax > 0 ? ymax : 1;
    double w = 360, ht = 200, l = 60, b = 30;
    fprintf(f, "<figure class=\"sweep\"><figcaption>%s</figcaption>", label);
    fprintf(f, "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%s\">\n",
            w, ht, label);
    fprintf(f,
            "<line class=\"gridline\" x1=\"%.0f\" y1=\"10\" x2=\"%.0f\" y2=\"%.0f\"/>"
            "<line class=\"gridline\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>\n",
            l, l, ht - b, l, ht - b, w - 10, ht - b);
    fputs("<polyline class=\"series\" points=\"", f);
    for (size_t i = 0; i < h->n_sweep; i++) {
        fprintf(f, "%.1f,%.1f ", l + (double)h->sweep[i].value / xmax * (w - l - 10),
                ht - b - ys[i] / ymax * (ht - b - 10));
    }
    fputs("\"/>\n", f);
    for (size_t i = 0; i < h->n_sweep; i++) {
        double x = l + (double)h->sweep[i].value / xmax * (w - l - 10);
        fprintf(f,
                "<circle class=\"pt\" r=\"3\" cx=\"%.1f\" cy=\"%.1f\"><title>%s=%" PRId64
                ": %.6g</title></circle><text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%" PRId64
                "</text>\n",
                x, ht - b - ys[i] / ymax * (ht - b - 10), h->sweep_symbol, h->sweep[i].value, ys[i],
                x, ht - b + 16, h->sweep[i].value);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"14\" text-anchor=\"end\">", l - 4);
    si(f, ymax);
    fputs("</text></svg></figure>\n", f);
}

static double quantity_num(const fl_quantity *q) {
    return q->known ? (double)q->value : NAN;
}

static void sweep_section(FILE *f, const fl_html_report *h) {
    if (!h->n_sweep) {
        return;
    }
    double *ys = calloc(h->n_sweep, sizeof(double));
    if (!ys) {
        return;
    }
    fputs("<section id=\"sweep\"><h2>Sweep over <code>", f);
    esc(f, h->sweep_symbol);
    fputs("</code></h2>\n<table><tr><th>value</th><th>FLOPs</th><th>bytes</th>", f);
    const fl_report *r0 = fl_cli_analysis_report(h->sweep[0].analysis);
    for (size_t k = 0; k < r0->n_roofline; k++) {
        fputs("<th>time on ", f);
        esc(f, r0->roofline[k].profile);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t i = 0; i < h->n_sweep; i++) {
        const fl_report *r = fl_cli_analysis_report(h->sweep[i].analysis);
        fprintf(f, "<tr><td class=\"n\">%" PRId64 "</td>", h->sweep[i].value);
        count_cell(f, &r->totals.flops);
        count_cell(f, &r->totals.bytes);
        for (size_t k = 0; k < r->n_roofline; k++) {
            fputs("<td class=\"n\">", f);
            time_text(f, r->roofline[k].before->time_s);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    const char *labels[] = {"FLOPs", "bytes"};
    for (int m = 0; m < 2 + (int)r0->n_roofline; m++) {
        for (size_t i = 0; i < h->n_sweep; i++) {
            const fl_report *r = fl_cli_analysis_report(h->sweep[i].analysis);
            ys[i] = m == 0   ? quantity_num(&r->totals.flops)
                    : m == 1 ? quantity_num(&r->totals.bytes)
                             : r->roofline[m - 2].before->time_s;
        }
        char label[160];
        snprintf(label, sizeof label, "%s", m < 2 ? labels[m] : "time (s) on ");
        if (m >= 2) {
            strncat(label, r0->roofline[m - 2].profile, sizeof label - strlen(label) - 1);
        }
        sweep_chart(f, h, label, ys);
    }
    fputs("</section>\n", f);
    free(ys);
}

/* ------------------------------------------------------------------------- */
/* The LLM view                                                               */
/* ------------------------------------------------------------------------- */

static void llm_phase_row(FILE *f, const char *name, const fl_llm_phase *p) {
    fprintf(f,
            "<tr><th scope=\"row\">%s</th><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64
            "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">",
            name, p->tokens, p->past, p->seq);
    si(f, p->flops_per_token);
    fputs("</td><td class=\"n\">", f);
    si(f, p->macs_per_token);
    fputs("</td><td class=\"n\">", f);
    si(f, p->bytes_per_token);
    fprintf(f, "</td><td class=\"n\">%.3g</td></tr>\n", p->intensity);
}

static void llm_time_cell(FILE *f, const fl_llm_time *t) {
    fputs("<td class=\"n\">", f);
    time_text(f, t->time_per_token_s);
    fprintf(f, "</td><td>%s</td>", t->bound);
}

static void llm_time_row(FILE *f, const fl_llm_roofline *e, const char *when) {
    fputs("<tr><th scope=\"row\">", f);
    esc(f, e->profile);
    fprintf(f, "%s</th>", when);
    llm_time_cell(f, &e->prefill);
    llm_time_cell(f, &e->decode);
    fputs("</tr>\n", f);
}

/* The cost per token of prefill and decode, the KV cache and the time per
 * token per profile (a decoder's view; nothing for other graphs). */
static void llm_section(FILE *f, const fl_report *r) {
    const fl_report_llm *v = r->llm;
    if (!v) {
        return;
    }
    fprintf(f,
            "<section id=\"llm\"><h2>LLM view</h2>\n<p>Prefill of %" PRId64
            " tokens and decode of one token at a context of %" PRId64 " (<code>",
            v->prompt, v->context);
    esc(f, v->seq_symbol);
    fputs("</code> is the sequence", f);
    if (v->past_symbol) {
        fputs(", <code>", f);
        esc(f, v->past_symbol);
        fputs("</code> the KV cache's past length", f);
    }
    fputs(v->after ? "), each counted on the graph as given and after the rewrite passes (each "
                     "phase's graph optimised at its bindings).</p>\n"
                   : "), each counted on the graph as given.</p>\n",
          f);
    fputs("<table><tr><th>phase</th><th>tokens</th>"
          "<th>past</th><th>seq</th><th>FLOPs/token</th><th>MACs/token</th><th>bytes/token</th>"
          "<th>FLOPs/byte</th></tr>\n",
          f);
    llm_phase_row(f, "prefill", &v->prefill);
    llm_phase_row(f, "decode", &v->decode);
    if (v->after) {
        llm_phase_row(f, "prefill, after the passes", &v->after->prefill);
        llm_phase_row(f, "decode, after the passes", &v->after->decode);
    }
    fputs("</table>\n", f);
    if (v->past_symbol) {
        fputs("<p>KV cache: ", f);
        si(f, v->kv_bytes_per_token);
        fputs("B per token of context, ", f);
        si(f, v->kv_bytes_at_context);
        fprintf(f, "B at a context of %" PRId64 ".</p>\n", v->context);
    }
    if (v->n_roofline) {
        fputs("<table><tr><th>profile</th><th>prefill time/token</th><th>bound</th>"
              "<th>decode time/token</th><th>bound</th></tr>\n",
              f);
        for (size_t i = 0; i < v->n_roofline; i++) {
            llm_time_row(f, &v->roofline[i], "");
            if (v->after && i < v->after->n_roofline) {
                llm_time_row(f, &v->after->roofline[i], ", after the passes");
            }
        }
        fputs("</table>\n", f);
    }
    fputs("</section>\n", f);
}

/* ------------------------------------------------------------------------- */
/* Page                                                                       */
/* ------------------------------------------------------------------------- */

void fl_report_write_html(FILE *f, const fl_html_report *h) {
    const fl_report *r = fl_cli_analysis_report(h->analysis);
    fputs(page_head, f);
    fputs("<title>foldline report: ", f);
    esc(f, h->model);
    fputs("</title>\n", f);
    fputs(page_style, f);
    fputs("</head>\n<body>\n<header><h1>Cost report: <code>", f);
    esc(f, h->model);
    fprintf(f, "</code></h1><p class=\"muted\">foldline %s</p></header>\n", fl_version());
    summary(f, h, r);
    llm_section(f, r);
    fputs("<section id=\"roofline\"><h2>Roofline</h2>\n", f);
    if (!r->n_roofline && r->llm && r->llm->n_roofline) {
        fputs("<p>The graph's symbols are free, so it has no estimate as a whole: the LLM view "
              "above estimates each phase. Bind every symbol (<code>--bind SYM=N</code>) for the "
              "roofline charts.</p>\n",
              f);
    } else if (!r->n_roofline) {
        fputs("<p>No profile given: add <code>--profile NAME</code> (or <code>all</code>) for "
              "time estimates and roofline charts.</p>\n",
              f);
    } else {
        fputs("<p id=\"tip\" aria-live=\"polite\" class=\"muted\">Hover over or focus a mark "
              "(Tab) for its node, op, FLOPs, bytes, time and bound.</p>\n",
              f);
    }
    for (size_t i = 0; i < r->n_roofline; i++) {
        roofline_chart(f, &r->roofline[i], fl_cli_analysis_profile(h->analysis, i));
    }
    fputs("</section>\n<section id=\"top\"><h2>Top ops</h2>\n", f);
    for (size_t i = 0; i < r->n_roofline; i++) {
        top_by_time(f, &r->roofline[i]);
    }
    top_by_flops(f, r);
    fputs("</section>\n", f);
    ledger(f, r);
    sweep_section(f, h);
    fputs(page_script, f);
    fputs("</body>\n</html>\n", f);
}
