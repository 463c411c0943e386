/*
 * The systolic array's schedule across blocks (docs/stpu.md, "Schedule").
 *
 * Block b occupies the array after block b-1. W_b is the cycle its weight
 * load starts on row 0 (row r starts at W_b + r, one row after another from
 * the left edge); a row's load takes saw cycles and the row is usable from
 * its last load cycle (seed: the vector of the next block can enter at cycle
 * SAH - 1 when its load started at cycle 0). With two weight buffers, a
 * block's load starts when the load chain is free and when the block two
 * back has released the buffer on that row (its last PE column has
 * accumulated):
 *
 *   W_0 = 0,  W_b = max(W_{b-1} + saw, E_{b-2}[saw-1] + 1)
 *
 * E_b[c] is the cycle the end signal of column c's input group enters the
 * top of the column (PE (r, c) accumulates at E_b[c] + r). Its first element
 * enters when the weights are there and the previous block's end signal
 * has entered (seed rule 1: IG_k of B_{i+1} follows IG_k of B_i), the L
 * elements enter one per cycle, and the end signal then waits for the
 * partial sum from its left (E_b[c-1] + 1, the diagonal wave) and for the
 * right neighbour to have used the previous block's partial sum (seed rule
 * 2: E_b[c] > E_{b-1}[c+1]):
 *
 *   E_b[c] = max(L + max(W_b + saw - 1, E_{b-1}[c]), E_b[c-1] + 1,
 *                E_{b-1}[c] + 1, E_{b-1}[c+1] + 1)
 *
 * With TRIGGER_ARRIVAL (TPU, KMZ) the value itself triggers the multiply-add
 * at its arrival: the first term becomes W_b + saw - 1. Columns past a
 * block's width get no input (L = 0) and only pass partial sums right.
 * Row r's output leaves the last column at E_b[saw-1] + r and is added to
 * the output accumulator in the next cycle; the run ends after the last one:
 * cycles = max_b(E_b[saw-1] + rows_b) + 1.
 */
#include "accel/stpu_int.h"

#include <stdlib.h>

#include "util/xalloc.h"

#define NONE INT64_MIN

static int64_t max2(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

void stpu_sched_init(struct stpu_sched *s, unsigned sah, unsigned saw, enum stpu_trigger t)
{
	unsigned c;

	s->sah = sah;
	s->saw = saw;
	s->trigger = t;
	s->n_blocks = 0;
	s->w_prev = NONE;
	s->e_prev = xmalloc(saw * sizeof(*s->e_prev));
	s->e_cur = xmalloc(saw * sizeof(*s->e_cur));
	for (c = 0; c < saw; c++)
		s->e_prev[c] = NONE;
	s->e_last_prev2 = NONE;
	s->done = NONE;
}

void stpu_sched_block(struct stpu_sched *s, unsigned rows, unsigned width, const uint32_t *len)
{
	unsigned saw = s->saw, c;
	int64_t w, *t;
	bool first = s->n_blocks == 0;

	w = first ? 0 : s->w_prev + saw;
	if (s->e_last_prev2 != NONE)
		w = max2(w, s->e_last_prev2 + 1);
	for (c = 0; c < saw; c++) {
		int64_t ready = w + saw - 1, e;
		if (s->trigger == STPU_TRIGGER_END) {
			int64_t l = c < width ? len[c] : 0;
			e = l + (first ? ready : max2(ready, s->e_prev[c]));
		} else {
			e = ready;
		}
		if (c > 0)
			e = max2(e, s->e_cur[c - 1] + 1);
		if (!first) {
			e = max2(e, s->e_prev[c] + 1);
			if (c + 1 < saw)
				e = max2(e, s->e_prev[c + 1] + 1);
		}
		s->e_cur[c] = e;
	}
	s->done = max2(s->done, s->e_cur[saw - 1] + rows);
	s->e_last_prev2 = first ? NONE : s->e_prev[saw - 1];
	t = s->e_prev;
	s->e_prev = s->e_cur;
	s->e_cur = t;
	s->w_prev = w;
	s->n_blocks++;
}

/*
 * With TRIGGER_ARRIVAL nothing of a block but its rows matters: by
 * induction from W_0 = 0, W_b = b saw and E_b[c] = W_b + saw - 1 + c (the
 * load chain is the binding constraint; E_{b-2}[saw-1] + 1 = W_b - 1 and
 * E_{b-1}[c+1] + 1 = W_b + c + 1 never bind, nor does E_{b-1}[c] + 1), so
 * 'n' blocks are scheduled at once, and the last of them ends the latest.
 */
void stpu_sched_arrival_blocks(struct stpu_sched *s, unsigned rows, uint64_t n)
{
	unsigned saw = s->saw, c;
	int64_t last;

	if (s->trigger != STPU_TRIGGER_ARRIVAL)
		BUG("stpu_sched_arrival_blocks() on a schedule whose blocks wait for end signals");
	if (n == 0)
		return;
	last = (int64_t)(s->n_blocks + n - 1);
	for (c = 0; c < saw; c++)
		s->e_prev[c] = (last + 1) * saw - 1 + c;
	s->done = max2(s->done, (last + 2) * saw - 2 + rows);
	s->e_last_prev2 = last >= 1 ? (last + 1) * saw - 2 : NONE;
	s->w_prev = last * saw;
	s->n_blocks += n;
}

uint64_t stpu_sched_cycles(const struct stpu_sched *s)
{
	return s->n_blocks ? (uint64_t)(s->done + 1) : 0;
}

void stpu_sched_release(struct stpu_sched *s)
{
	free(s->e_prev);
	free(s->e_cur);
	s->e_prev = s->e_cur = NULL;
}
