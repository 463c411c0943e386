/*
 * Keys (job/hash.c): a hash of the same inputs is the same, a string's
 * length is part of it ("ab"+"c" is not "a"+"bc"), NULL differs from "",
 * a file's bytes count and a missing file is an error; options that change
 * a result change the key and the threads do not; the set of keys finds
 * what was added through its growth, and nothing else.
 */
#include "job/job_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit.h"
#include "util/strbuf.h"

static void hex_of(const char *a, const char *b, char out[JOB_KEY_CHARS + 1])
{
	struct job_hash h;
	job_hash_init(&h);
	job_hash_str(&h, a);
	job_hash_str(&h, b);
	job_hash_hex(&h, out);
}

static void test_hash(void)
{
	char k1[JOB_KEY_CHARS + 1], k2[JOB_KEY_CHARS + 1], k3[JOB_KEY_CHARS + 1];
	size_t i;

	hex_of("ab", "c", k1);
	hex_of("ab", "c", k2);
	CU_ASSERT_STRING_EQUAL(k1, k2);
	CU_ASSERT_EQUAL(strlen(k1), JOB_KEY_CHARS);
	for (i = 0; i < JOB_KEY_CHARS; i++)
		CU_ASSERT_PTR_NOT_NULL(strchr("0123456789abcdef", k1[i]));
	hex_of("a", "bc", k3);
	CU_ASSERT_STRING_NOT_EQUAL(k1, k3);
	hex_of("", "c", k2);
	hex_of(NULL, "c", k3);
	CU_ASSERT_STRING_NOT_EQUAL(k2, k3);
}

static void test_file(void)
{
	char path[] = "/tmp/test_hash.XXXXXX", k1[JOB_KEY_CHARS + 1], k2[JOB_KEY_CHARS + 1];
	struct strbuf err = STRBUF_INIT;
	struct job_hash h;
	int fd = mkstemp(path);
	FILE *fp;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	fp = fopen(path, "w");
	fputs("density: 0.1\n", fp);
	fclose(fp);
	job_hash_init(&h);
	CU_ASSERT_EQUAL(job_hash_file(&h, path, &err), 0);
	job_hash_hex(&h, k1);
	fp = fopen(path, "w");
	fputs("density: 0.1 # a comment\n", fp);
	fclose(fp);
	job_hash_init(&h);
	CU_ASSERT_EQUAL(job_hash_file(&h, path, &err), 0);
	job_hash_hex(&h, k2);
	CU_ASSERT_STRING_NOT_EQUAL(k1, k2);        /* any byte of a design counts */
	unlink(path);
	CU_ASSERT_EQUAL(job_hash_file(&h, path, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.buf, "test_hash"));
	strbuf_release(&err);
}

/* The key of 'o' alone. */
static void options_key(const struct job_options *o, char out[JOB_KEY_CHARS + 1])
{
	struct job_hash h;
	job_hash_init(&h);
	job_hash_options(&h, o);
	job_hash_hex(&h, out);
}

static void test_options(void)
{
	char base[JOB_KEY_CHARS + 1], k[JOB_KEY_CHARS + 1];
	struct job_options o;

	job_options_init(&o, JOB_MAP);
	options_key(&o, base);
	o.map.threads = 7;                         /* the threads change nothing */
	o.map.has_threads = true;
	o.format = JOB_FORMAT_JSON;
	o.want = JOB_WANT_FILES;
	options_key(&o, k);
	CU_ASSERT_STRING_EQUAL(base, k);
	o.seed = 5;                                /* the seed does */
	o.has_seed = true;
	options_key(&o, k);
	CU_ASSERT_STRING_NOT_EQUAL(base, k);
	job_options_init(&o, JOB_MAP);
	o.energy_preset = "horowitz45";            /* and the energy preset */
	options_key(&o, k);
	CU_ASSERT_STRING_NOT_EQUAL(base, k);
	job_options_init(&o, JOB_MODEL);           /* and the command */
	options_key(&o, k);
	CU_ASSERT_STRING_NOT_EQUAL(base, k);
}

static void test_key_set(void)
{
	struct job_key_set ks = JOB_KEY_SET_INIT;
	char key[JOB_KEY_CHARS + 1];
	unsigned i, n_found = 0;

	for (i = 0; i < 5000; i++) {
		char s[16];
		snprintf(s, sizeof(s), "%u", i);
		hex_of(s, "x", key);
		job_key_set_add(&ks, key);
		job_key_set_add(&ks, key);         /* twice: one entry */
	}
	CU_ASSERT_EQUAL(ks.n, 5000);
	for (i = 0; i < 10000; i++) {
		char s[16];
		snprintf(s, sizeof(s), "%u", i);
		hex_of(s, "x", key);
		n_found += job_key_set_has(&ks, key);
	}
	CU_ASSERT_EQUAL(n_found, 5000);
	job_key_set_add(&ks, "short");            /* not a key: ignored */
	CU_ASSERT_EQUAL(ks.n, 5000);
	job_key_set_release(&ks);
	CU_ASSERT_FALSE(job_key_set_has(&ks, key));
}

static CU_TestInfo hash_tests[] = {
	{ "hashes of strings", test_hash },
	{ "hashes of files", test_file },
	{ "options in a key", test_options },
	{ "key sets", test_key_set },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "hash", .pTests = hash_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
