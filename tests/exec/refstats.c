#include "tests/exec/refstats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static void trim(char *s)
{
	size_t n = strlen(s);
	char *b = s;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	while (*b == ' ')
		b++;
	memmove(s, b, strlen(b) + 1);
}

int refstats_load(struct refstats *rs, const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[512], level[64] = "", tensor[64] = "", last_label[96] = "";
	size_t alloc = 0;

	rs->n = 0;
	rs->v = NULL;
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		char *colon;
		size_t len = strlen(line);
		if (!strncmp(line, "=== ", 4)) {
			snprintf(level, sizeof(level), "%.*s", (int)(len - 9), line + 4);
			tensor[0] = '\0';
			continue;
		}
		if (!strncmp(line, "    ", 4) && line[4] != ' ' && len > 6 && line[len - 2] == ':' &&
		    !strchr(line + 4, ' ')) {
			snprintf(tensor, sizeof(tensor), "%.*s", (int)(len - 6), line + 4);
			continue;
		}
		if (strstr(line, "Rank ") && strstr(line, "(metadata, payload): (") && level[0]) {
			/* "Rank r (metadata, payload): (md, pl)" under the last label */
			unsigned r;
			unsigned long long md, pl;
			const char *rk = strstr(line, "Rank ");
			const char *open = strstr(line, "): (") + 4;
			if (sscanf(rk, "Rank %u", &r) != 1 || sscanf(open, "%llu, %llu", &md, &pl) != 2)
				continue;
			XGROW(rs->v, rs->n + 1, alloc);
			memset(&rs->v[rs->n], 0, sizeof(rs->v[0]));
			snprintf(rs->v[rs->n].level, sizeof(rs->v[0].level), "%s", level);
			snprintf(rs->v[rs->n].tensor, sizeof(rs->v[0].tensor), "%s", tensor);
			snprintf(rs->v[rs->n].label, sizeof(rs->v[0].label), "%.80s | Rank %u",
				 last_label, r);
			snprintf(rs->v[rs->n].value, sizeof(rs->v[0].value), "%llu %llu", md, pl);
			rs->n++;
			continue;
		}
		colon = strstr(line, " : ");
		if (!colon) {
			/* a label whose values follow on "Rank" lines */
			char tmp[512];
			snprintf(tmp, sizeof(tmp), "%s", line);
			trim(tmp);
			if (level[0] && tmp[0])
				snprintf(last_label, sizeof(last_label), "%.95s", tmp);
			continue;
		}
		if (!level[0])
			continue;
		XGROW(rs->v, rs->n + 1, alloc);
		memset(&rs->v[rs->n], 0, sizeof(rs->v[0]));
		snprintf(rs->v[rs->n].level, sizeof(rs->v[0].level), "%s", level);
		snprintf(rs->v[rs->n].tensor, sizeof(rs->v[0].tensor), "%s", tensor);
		*colon = '\0';
		/* a longer label is cut, as before: the precision says so to gcc -O1's check */
		snprintf(rs->v[rs->n].label, sizeof(rs->v[0].label), "%.*s",
			 (int)sizeof(rs->v[0].label) - 1, line);
		snprintf(rs->v[rs->n].value, sizeof(rs->v[0].value), "%s", colon + 3);
		trim(rs->v[rs->n].label);
		trim(rs->v[rs->n].value);
		snprintf(last_label, sizeof(last_label), "%s", rs->v[rs->n].label);
		rs->n++;
	}
	fclose(fp);
	return 0;
}

const char *refstats_get(const struct refstats *rs, const char *level, const char *tensor,
			 const char *label)
{
	size_t i;
	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].level, level) && !strcmp(rs->v[i].tensor, tensor) &&
		    !strcmp(rs->v[i].label, label))
			return rs->v[i].value;
	return NULL;
}

void refstats_release(struct refstats *rs)
{
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
}
