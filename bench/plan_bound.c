/* How few bytes any SSD1306 command sequence could send for a run of frames: a lower bound and
 * the cost of a planner that knows every future frame (make bench-bound, docs/PERFORMANCE.md).
 *
 * islet-bench export writes the countdown's frames (raw SSD1306 RAM, page-major, one byte per
 * column per page). Each tick is the change from one frame to the next. The driver prices its
 * plans one tick at a time; this program asks what the best possible sequence of commands
 * would cost over the whole run, so a target stated against "the floor" (changed bytes plus one
 * control byte a tick) can be judged against what the controller's addressing allows.
 *
 * The model is the datasheet's (SSD1306 Rev 1.1 §8.1.5.2, §10.1.3–10.1.5): a transaction starts
 * with one control byte and then carries either commands or data; in horizontal (vertical)
 * addressing a data byte goes to the pointer, which steps along the column (page) and wraps at
 * the window's end to its start; 21h c0 c1 sets the column window and puts the column pointer
 * at c0, 22h p0 p1 the same for pages, 20h m the mode. Costs: 21h or 22h alone 4 bytes (with
 * the control byte), both 7, a mode change 2 more (3 alone); each data transaction 1 + its
 * data. Address bytes are not counted, as in bus_bytes_per_tick.
 *
 * The "cell" is the bounding box of the bytes that change on more than 15 % of the ticks (the
 * seconds' digit). Inside it the search is exact: every window in either mode, every pointer
 * position, every length of data stream (writing past the last change to leave the pointer
 * where the next tick's 21h or 22h alone, which resets one coordinate only, wants the other). A window reaching outside the cell never makes a stream
 * through the cell shorter (its order restricted to the cell is the smaller window's order), so
 * the cell's windows are enough for ticks whose changes all lie in the cell.
 *
 * Lower bound: a tick that needs two or more data streams is charged 1 + changed + 3 (at least
 * one more command transaction, even a 1-byte one such as B0h+page in page addressing, or the
 * same bytes with the Co bit, and one more control byte)
 * and may leave the RAM pointer anywhere; a tick that changes bytes outside the cell is charged
 * 1 + changed and may leave it anywhere. Both only make the bound lower.
 * With the future known: the same exact search for the cell; each cluster of changes outside
 * it is written as its bounding box through its own window (7 + 1 + box), then the cell's
 * window is set again (7). Every step is a real command sequence, so this is a cost some planner
 * reaches (one that knows the next frames), not a bound. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define INF (1LL << 60)
#define MAXW 4096

typedef struct { int c0, c1, p0, p1; } Win;

static int width = 128, height = 32, pages;
static int cc0, cc1, cp0, cp1;      /* the cell */
static Win wins[MAXW];
static int nwin, base[MAXW], nstates; /* a state: mode (0 horizontal, 1 vertical), window, pointer index */

static int wcols(Win w) { return w.c1 - w.c0 + 1; }
static int wrows(Win w) { return w.p1 - w.p0 + 1; }
static int wsize(Win w) { return wcols(w) * wrows(w); }

/* The RAM position (page * width + column) the k-th byte of a stream through w lands on. */
static int at(int mode, Win w, int k) {
    int col = mode ? w.c0 + k / wrows(w) : w.c0 + k % wcols(w);
    int page = mode ? w.p0 + k % wrows(w) : w.p0 + k / wcols(w);
    return page * width + col;
}
static int index_of(int mode, Win w, int col, int page) {
    return mode ? (col - w.c0) * wrows(w) + (page - w.p0) : (page - w.p0) * wcols(w) + (col - w.c0);
}
static int state(int mode, int wi, int k) { return mode * nstates + base[wi] + k; }

static void relax(long long *v, int s, long long c) { if (c < v[s]) v[s] = c; }

/* One tick: from the states' costs before it to the costs after it. */
static void step(const long long *cost, long long *next, long long *pre, const uint8_t *changed,
                 int n_in, int n_out, long long outside_cost, int exact_outside, int *wi_of, int *k_of) {
    int total = 2 * nstates;
    long long gmin[2] = { INF, INF };
    for (int s = 0; s < total; s++) if (cost[s] < gmin[s / nstates]) gmin[s / nstates] = cost[s];
    long long g = gmin[0] < gmin[1] ? gmin[0] : gmin[1];
    if (n_in == 0 && n_out == 0) { memcpy(next, cost, total * sizeof *next); return; }
    if (!exact_outside && n_out > 0) { /* lower bound: anything after it */
        for (int s = 0; s < total; s++) next[s] = g + 1 + n_in + n_out;
        return;
    }
    for (int s = 0; s < total; s++) pre[s] = INF;
    if (n_out > 0) {
        /* outside clusters written first, then 21h+22h (and 20h if needed) to the cell */
        for (int m = 0; m < 2; m++)
            for (int wi = 0; wi < nwin; wi++)
                relax(pre, state(m, wi, 0), outside_cost + 7 + (gmin[m] < gmin[1 - m] + 2 ? gmin[m] : gmin[1 - m] + 2));
        if (n_in == 0) { for (int s = 0; s < total; s++) next[s] = pre[s]; return; }
    } else {
        for (int s = 0; s < total; s++) {
            long long c = cost[s];
            if (c >= INF) continue;
            int m = s / nstates, wi = wi_of[s % nstates], k = k_of[s % nstates];
            Win w = wins[wi];
            int pos = at(m, w, k), col = pos % width, page = pos / width;
            relax(pre, s, c);
            /* The datasheet does not say where 20h leaves the pointer; the bound assumes it stays,
             * the planner changes mode only together with both windows. */
            if (!exact_outside) relax(pre, state(1 - m, wi, index_of(1 - m, w, col, page)), c + 3);
            for (int m2 = 0; m2 < 2; m2++) {
                if (exact_outside && m2 != m) continue;
                long long extra = m2 == m ? 0 : 2;
                for (int vj = 0; vj < nwin; vj++) {
                    Win v = wins[vj];
                    if (v.p0 == w.p0 && v.p1 == w.p1) relax(pre, state(m2, vj, index_of(m2, v, v.c0, page)), c + 4 + extra);
                    if (v.c0 == w.c0 && v.c1 == w.c1) relax(pre, state(m2, vj, index_of(m2, v, col, v.p0)), c + 4 + extra);
                }
            }
        }
        for (int m = 0; m < 2; m++)
            for (int wi = 0; wi < nwin; wi++) {
                relax(pre, state(m, wi, 0), gmin[m] + 7);
                relax(pre, state(m, wi, 0), gmin[1 - m] + 9);
            }
    }
    /* lower bound only: two or more streams inside the cell cost at least 3 bytes more (a control
     * byte and one 1-byte command such as B0h+page, then the next data control byte), and the
     * pointer may be anywhere after */
    long long multi = (n_out > 0 || exact_outside ? INF : g + 1 + n_in + 3);
    for (int s = 0; s < total; s++) next[s] = multi;
    for (int s = 0; s < total; s++) {
        long long c = pre[s];
        if (c >= INF) continue;
        int m = s / nstates, wi = wi_of[s % nstates], k0 = k_of[s % nstates];
        Win w = wins[wi];
        int n = wsize(w), need = -1, seen = 0;
        for (int L = 1; L <= n; L++) {
            if (changed[at(m, w, (k0 + L - 1) % n)]) seen++;
            if (seen == n_in) { need = L; break; }
        }
        if (need < 0) continue; /* some change is outside this window */
        for (int L = need; L < need + n; L++) relax(next, state(m, wi, (k0 + L) % n), c + 1 + L);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: plan_bound FRAMES [WIDTH HEIGHT]\n"); return 64; }
    if (argc >= 4) { width = atoi(argv[2]); height = atoi(argv[3]); }
    pages = height / 8;
    int fsize = width * pages;
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 66; }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    if (len <= 0 || len % fsize) { fprintf(stderr, "%s: %ld bytes is not a whole number of %dx%d frames\n", argv[1], len, width, height); return 65; }
    int nframes = (int)(len / fsize), ticks = nframes - 1;
    uint8_t *frames = malloc(len);
    if (!frames || fread(frames, 1, len, f) != (size_t)len) { perror(argv[1]); return 66; }
    fclose(f);

    int *hits = calloc(fsize, sizeof *hits);
    long long changed_total = 0, floor_total = 0;
    for (int t = 0; t < ticks; t++) {
        int n = 0;
        for (int i = 0; i < fsize; i++) if (frames[t * fsize + i] != frames[(t + 1) * fsize + i]) { hits[i]++; n++; }
        changed_total += n;
        if (n) floor_total += n + 1;
    }
    cc0 = width; cc1 = -1; cp0 = pages; cp1 = -1;
    for (int i = 0; i < fsize; i++)
        if (hits[i] * 100 > ticks * 15) {
            int c = i % width, p = i / width;
            if (c < cc0) cc0 = c;
            if (c > cc1) cc1 = c;
            if (p < cp0) cp0 = p;
            if (p > cp1) cp1 = p;
        }
    if (cc1 < 0) { fprintf(stderr, "no byte changes on more than 15 %% of the ticks\n"); return 65; }
    for (int p0 = cp0; p0 <= cp1; p0++) for (int p1 = p0; p1 <= cp1; p1++)
        for (int c0 = cc0; c0 <= cc1; c0++) for (int c1 = c0; c1 <= cc1; c1++) {
            if (nwin == MAXW) { fprintf(stderr, "cell too large\n"); return 65; }
            wins[nwin] = (Win){ c0, c1, p0, p1 };
            base[nwin] = nstates;
            nstates += wsize(wins[nwin++]);
        }
    int *wi_of = malloc(nstates * sizeof *wi_of), *k_of = malloc(nstates * sizeof *k_of);
    for (int wi = 0; wi < nwin; wi++) for (int k = 0; k < wsize(wins[wi]); k++) { wi_of[base[wi] + k] = wi; k_of[base[wi] + k] = k; }

    long long *lo = malloc(2 * nstates * sizeof *lo), *hi = malloc(2 * nstates * sizeof *hi);
    long long *next = malloc(2 * nstates * sizeof *next), *pre = malloc(2 * nstates * sizeof *pre);
    uint8_t *changed = calloc(fsize, 1);
    for (int s = 0; s < 2 * nstates; s++) { lo[s] = 0; hi[s] = INF; }
    for (int wi = 0; wi < nwin; wi++) hi[state(0, wi, 0)] = 7; /* the first window, from a full frame */
    int outside_ticks = 0;
    for (int t = 0; t < ticks; t++) {
        const uint8_t *a = frames + t * fsize, *b = a + fsize;
        int n_in = 0, n_out = 0;
        long long outside = 0;
        for (int i = 0; i < fsize; i++) {
            changed[i] = 0;
            if (a[i] == b[i]) continue;
            int c = i % width, p = i / width;
            if (c >= cc0 && c <= cc1 && p >= cp0 && p <= cp1) { changed[i] = 1; n_in++; } else n_out++;
        }
        /* outside clusters: columns with a change outside the cell, split at gaps of 4 or more;
         * each is written as its bounding box through its own window: 7 + 1 + box */
        int open = 0, cl0 = 0, cl1 = 0, pmin = 0, pmax = 0;
        for (int c = 0; c < width; c++) {
            int p0 = pages, p1 = -1;
            for (int p = 0; p < pages; p++) {
                int i = p * width + c;
                if (a[i] != b[i] && !changed[i]) { if (p < p0) p0 = p; p1 = p; }
            }
            if (p1 < 0) continue;
            if (open && c - cl1 < 4) {
                cl1 = c;
                if (p0 < pmin) pmin = p0;
                if (p1 > pmax) pmax = p1;
            } else {
                if (open) outside += 8 + (long long)(cl1 - cl0 + 1) * (pmax - pmin + 1);
                open = 1; cl0 = cl1 = c; pmin = p0; pmax = p1;
            }
        }
        if (open) outside += 8 + (long long)(cl1 - cl0 + 1) * (pmax - pmin + 1);
        if (n_out) outside_ticks++;
        step(lo, next, pre, changed, n_in, n_out, 0, 0, wi_of, k_of);
        memcpy(lo, next, 2 * nstates * sizeof *lo);
        step(hi, next, pre, changed, n_in, n_out, outside, 1, wi_of, k_of);
        memcpy(hi, next, 2 * nstates * sizeof *hi);
    }
    long long best_lo = INF, best_hi = INF;
    for (int s = 0; s < 2 * nstates; s++) { if (lo[s] < best_lo) best_lo = lo[s]; if (hi[s] < best_hi) best_hi = hi[s]; }
    double fl = (double)floor_total / ticks;
    printf("{\n  \"ticks\": %d,\n  \"cell\": \"columns %d-%d, pages %d-%d\",\n  \"ticks_changing_outside_cell\": %d,\n",
           ticks, cc0, cc1, cp0, cp1, outside_ticks);
    printf("  \"changed_bytes_per_tick\": %.3f,\n  \"floor_bytes_per_tick\": %.3f,\n  \"floor_x1_3\": %.3f,\n",
           (double)changed_total / ticks, fl, 1.3 * fl);
    printf("  \"lower_bound_bytes_per_tick\": %.3f,\n  \"future_known_planner_bytes_per_tick\": %.3f\n}\n",
           (double)best_lo / ticks, (double)best_hi / ticks);
    return 0;
}
