/*
 * Written piece by piece with pe_write, so a full disk or a closed pipe
 * stops the output at the first failing write with the right error code.
 */
#include "io/stats_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/fmt.h"
#include "io/metajson.h"
#include "io/output.h"

/* JSON has no NaN or infinity: null says "not defined here" */
static int put_num(FILE *fp, double v, struct pe_error *err)
{
	char buf[PE_FMT_BUF];

	if (!isfinite(v))
		return pe_write_str(fp, "null", err);
	return pe_write(fp, buf, pe_fmt_f64(v, buf), err);
}

static int put_u64(FILE *fp, uint64_t v, struct pe_error *err)
{
	char buf[PE_FMT_BUF];
	int len = snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);

	return pe_write(fp, buf, (size_t)len, err);
}

static int check_step(const struct pe_stats *st, uint64_t offset_step, struct pe_error *err)
{
	if (offset_step == 0)
		return pe_fail(err, PE_ERR_PARAM, "an offset step must be at least 1");
	if (st->n > 1 && offset_step > UINT64_MAX / (st->n - 1))
		return pe_fail(err, PE_ERR_DATA,
			       "offsets of %llu rows taken every %llu positions do not fit in 64 bits",
			       (unsigned long long)st->n, (unsigned long long)offset_step);
	return 0;
}

static int put_key(FILE *fp, const char *key, struct pe_error *err)
{
	return pe_write_str(fp, ",\"", err) || pe_write_str(fp, key, err) || pe_write_str(fp, "\":", err) ? -1 : 0;
}

static int put_num_array(FILE *fp, const char *key, const double *v, uint64_t n,
			 struct pe_error *err)
{
	uint64_t k;

	if (pe_write_str(fp, key, err) || pe_write_str(fp, "[", err))
		return -1;
	for (k = 0; k < n; k++)
		if ((k && pe_write_str(fp, ",", err)) || put_num(fp, v[k], err))
			return -1;
	return pe_write_str(fp, "]", err);
}

static int put_profile(FILE *fp, const struct pe_stats *st, uint64_t offset_step,
		       struct pe_error *err)
{
	uint64_t k;

	if (pe_write_str(fp, ",\"profile\":{\"offset\":[", err))
		return -1;
	for (k = 0; k < st->n; k++)
		if ((k && pe_write_str(fp, ",", err)) || put_u64(fp, k * offset_step, err))
			return -1;
	if (pe_write_str(fp, "],", err) || put_num_array(fp, "\"mean\":", st->mean, st->n, err) ||
	    pe_write_str(fp, ",", err) || put_num_array(fp, "\"std\":", st->std, st->n, err) ||
	    pe_write_str(fp, ",\"count\":[", err))
		return -1;
	for (k = 0; k < st->n; k++)
		if ((k && pe_write_str(fp, ",", err)) || put_u64(fp, st->count[k], err))
			return -1;
	return pe_write_str(fp, "]}}\n", err);
}

int pe_stats_write_json(FILE *fp, const struct pe_stats *st, const struct pe_stats_params *p,
			const struct pe_meta *meta, uint64_t offset_step, struct pe_error *err)
{
	char *m = NULL;
	int rc;

	if (check_step(st, offset_step, err) != 0)
		return -1;
	if (meta) {
		m = pe_meta_json(meta);
		if (!m)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	rc = pe_write_str(fp, "{\"meta\":", err) || pe_write_str(fp, m ? m : "{}", err);
	free(m);
	if (rc || put_key(fp, "n", err) || put_u64(fp, st->n, err) ||
	    put_key(fp, "window", err) || put_u64(fp, p->window, err) ||
	    put_key(fp, "tau", err) || put_num(fp, p->tau, err) ||
	    put_key(fp, "translation_invariance", err) ||
	    put_num(fp, st->translation_invariance, err) ||
	    put_key(fp, "monotonicity_forward", err) || put_num(fp, st->monotonicity_forward, err) ||
	    put_key(fp, "monotonicity_backward", err) ||
	    put_num(fp, st->monotonicity_backward, err) ||
	    put_key(fp, "symmetry_lr", err) || put_num(fp, st->symmetry_lr, err) ||
	    put_key(fp, "locality", err) || put_num(fp, st->locality, err) ||
	    put_key(fp, "first_increase", err) ||
	    put_u64(fp, st->first_increase * offset_step, err))
		return -1;
	return put_profile(fp, st, offset_step, err);
}

int pe_stats_write_profile(FILE *fp, const struct pe_stats *st, uint64_t offset_step,
			   struct pe_error *err)
{
	char line[4 * PE_FMT_BUF + 8];
	size_t len;
	uint64_t k;

	if (check_step(st, offset_step, err) != 0)
		return -1;
	if (pe_write_str(fp, "offset,mean,std,count\n", err))
		return -1;
	for (k = 0; k < st->n; k++) {
		len = (size_t)snprintf(line, sizeof line, "%llu,",
				       (unsigned long long)(k * offset_step));
		len += pe_fmt_f64(st->mean[k], line + len);
		line[len++] = ',';
		len += pe_fmt_f64(st->std[k], line + len);
		len += (size_t)snprintf(line + len, sizeof line - len, ",%llu\n",
					(unsigned long long)st->count[k]);
		if (pe_write(fp, line, len, err) != 0)
			return -1;
	}
	return 0;
}
