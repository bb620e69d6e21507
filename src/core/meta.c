#include "core/meta.h"

#include <stdlib.h>
#include <string.h>

void pe_meta_init(struct pe_meta *m)
{
	memset(m, 0, sizeof *m);
}

static void item_clear(struct pe_meta_item *it)
{
	free(it->str);
	free(it->list);
	it->str = NULL;
	it->list = NULL;
	it->nlist = 0;
}

void pe_meta_free(struct pe_meta *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		item_clear(&m->item[i]);
	m->n = 0;
}

/* The slot for key: the existing one (cleared) or a new one; NULL when full. */
static struct pe_meta_item *slot(struct pe_meta *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (strcmp(m->item[i].key, key) == 0) {
			item_clear(&m->item[i]);
			return &m->item[i];
		}
	}
	if (m->n == PE_META_MAX) {
		m->oom = 1;
		return NULL;
	}
	m->item[m->n].key = key;
	return &m->item[m->n++];
}

void pe_meta_str(struct pe_meta *m, const char *key, const char *value)
{
	struct pe_meta_item *it = slot(m, key);
	size_t len = strlen(value);

	if (!it)
		return;
	it->kind = PE_META_STR;
	it->str = malloc(len + 1);
	if (!it->str) {
		m->oom = 1;
		it->str = NULL;
		it->kind = PE_META_BOOL;
		return;
	}
	memcpy(it->str, value, len + 1);
}

void pe_meta_num(struct pe_meta *m, const char *key, double value)
{
	struct pe_meta_item *it = slot(m, key);

	if (!it)
		return;
	it->kind = PE_META_NUM;
	it->num = value;
}

void pe_meta_int(struct pe_meta *m, const char *key, int64_t value)
{
	struct pe_meta_item *it = slot(m, key);

	if (!it)
		return;
	it->kind = PE_META_INT;
	it->i = value;
}

void pe_meta_bool(struct pe_meta *m, const char *key, int value)
{
	struct pe_meta_item *it = slot(m, key);

	if (!it)
		return;
	it->kind = PE_META_BOOL;
	it->i = value != 0;
}

void pe_meta_list(struct pe_meta *m, const char *key, const double *v, size_t n)
{
	struct pe_meta_item *it = slot(m, key);

	if (!it)
		return;
	it->kind = PE_META_LIST;
	it->list = malloc((n ? n : 1) * sizeof *v);
	if (!it->list) {
		m->oom = 1;
		it->kind = PE_META_BOOL;
		return;
	}
	if (n)
		memcpy(it->list, v, n * sizeof *v);
	it->nlist = n;
}
