/*
 * meta.h - the parameters of a result, in the order they were added.
 *
 * Commands record every parameter that shaped a result here; writers copy
 * them into the file (json "meta", safetensors "__metadata__", PNG text), so
 * a table carries its own provenance.  Keys are string literals (not
 * copied); string values are copied.  Adding the same key again replaces
 * the earlier value in place.
 */
#ifndef PE_META_H
#define PE_META_H

#include <stddef.h>
#include <stdint.h>

#define PE_META_MAX 64

enum pe_meta_kind { PE_META_STR, PE_META_NUM, PE_META_INT, PE_META_BOOL, PE_META_LIST };

struct pe_meta_item {
	const char *key;
	enum pe_meta_kind kind;
	double num;		/* PE_META_NUM */
	int64_t i;		/* PE_META_INT, PE_META_BOOL (0/1) */
	char *str;		/* PE_META_STR (owned) */
	double *list;		/* PE_META_LIST (owned, nlist values) */
	size_t nlist;
};

struct pe_meta {
	size_t n;
	int oom;		/* an allocation failed: the meta is incomplete */
	struct pe_meta_item item[PE_META_MAX];
};

void pe_meta_init(struct pe_meta *m);
void pe_meta_free(struct pe_meta *m);
void pe_meta_str(struct pe_meta *m, const char *key, const char *value);
void pe_meta_num(struct pe_meta *m, const char *key, double value);
void pe_meta_int(struct pe_meta *m, const char *key, int64_t value);
void pe_meta_bool(struct pe_meta *m, const char *key, int value);
void pe_meta_list(struct pe_meta *m, const char *key, const double *v, size_t n);

#endif
