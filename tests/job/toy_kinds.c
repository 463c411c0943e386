/*
 * The registry of design kinds: the table alone (what reads it is
 * registry.c), so that a program may bring a table of its own with one
 * more row (tests/job/test_toy_kind.c does).
 */
#include "job/kind_int.h"

/*
 * The kinds of design, the default (Timeloop's, which has no key of its
 * own) first: each KIND(name) is the row 'job_kind_<name>' that
 * job/<name>.c defines.
 *
 * A new kind is one line here and files of its own; nothing else changes:
 *   - specs/<kind>.c: its typed spec (in s->design) and its 'struct
 *     spec_kind' (name, top-level key, loader);
 *   - accel/<kind>_*.c (or another module): its model, a result type;
 *   - report/<kind>.c: its writers (the design as parsed, the result as
 *     text, JSON, CSV);
 *   - job/<kind>.c: its 'struct job_kind': the runner of each command it
 *     takes (and why it refuses the others), its writers, and the metric
 *     sets that read its results (getters into the vocabulary of
 *     job/metric.c; a metric not yet there is a row of that table);
 *   - tests, docs/ and an example.
 * Its own command (a 'command' name) is then known to 'sweep --command'
 * and to batch files' 'command'; a cli/cmd_<kind>.c with its row in
 * cli/fiberloop.c's table makes it a 'fiberloop' command too.
 */
#define JOB_KIND_ROWS(KIND) \
	KIND(timeloop)      \
	KIND(ipu)           \
	KIND(stpu)          \
	KIND(toy)           \
	/* a new kind: KIND(name) above this line */

#define DECLARE(name) extern const struct job_kind job_kind_##name;
#define ROW(name) &job_kind_##name,

JOB_KIND_ROWS(DECLARE)

const struct job_kind *const job_kinds[] = { JOB_KIND_ROWS(ROW) NULL };
