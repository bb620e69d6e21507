/*
 * report.h - a report: a tree of named values (records, lists, numbers,
 * text) written three ways from the one tree, so they cannot disagree:
 * JSON for scripts, aligned text for a person, and one list of flat
 * records as csv.  What `posenc explain` writes.
 *
 * Calling sequence:
 *   struct pe_report *r = pe_report_new();     NULL: out of memory
 *   struct pe_rnode *o = pe_report_root(r);    a record (JSON object)
 *   pe_rep_int(o, "layers", 62); ...           members keep their order
 *   p = pe_rep_param(o, "theta", "config", "rope_theta");
 *   pe_rep_num(p, "value", 1e6);
 *   pe_report_json(fp, r, err) / pe_report_text(fp, r, err)
 *   pe_report_csv(fp, list, err)               a list of flat records
 *   pe_report_free(r)
 * Adding never fails where the caller has to look: out of memory, the
 * call adds nothing (one that makes a record or list returns NULL, and
 * adding to NULL does nothing) and every writer then fails with
 * PE_ERR_NOMEM, so a report is whole or not written at all.
 *
 * Values: numbers are doubles (non-finite ones are null in JSON and csv,
 * "inf"/"nan" in text); integers are int64; text is copied (invalid UTF-8
 * written as U+FFFD in JSON).  Keys are the caller's static strings.
 *
 * JSON (pe_report_json): two-space indentation; a list of scalars, and a
 * record whose members are all scalars or such lists, on one line; numbers
 * as the shortest decimal that reads back to the same double.
 *
 * Text (pe_report_text): numbers to 8 significant digits, integers whole;
 *   - scalar members, one line each, "name  value", names aligned;
 *   - a param (a record of "value", "origin" and optionally "key" and
 *     "note"), "name  value  origin  key (note)", the columns aligned over
 *     the record;
 *   - a list of scalars: "a, b, c" (long ones wrapped under the value);
 *   - a list of flat records: a table, a header of their member names,
 *     numbers right-aligned, under the heading "name:";
 *   - a record, or a list of records that hold records or lists: a
 *     section under the heading "name:" (a record of such a list: its
 *     "name" member as the heading), two spaces further in.
 *
 * csv (pe_report_csv): a header of the first record's member names, then
 * one line per record; a list member's values joined by ';', text quoted
 * when it holds a comma, quote or line break (RFC 4180).
 */
#ifndef PE_REPORT_H
#define PE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

struct pe_report;
struct pe_rnode;

struct pe_report *pe_report_new(void);
void pe_report_free(struct pe_report *r);
struct pe_rnode *pe_report_root(struct pe_report *r);

/* A new record or list as member key of parent (key NULL: parent is a
 * list); NULL when parent is NULL or out of memory. */
struct pe_rnode *pe_rep_record(struct pe_rnode *parent, const char *key);
struct pe_rnode *pe_rep_list(struct pe_rnode *parent, const char *key);

/* Scalars as member key of parent (NULL: parent is a list). */
void pe_rep_num(struct pe_rnode *parent, const char *key, double v);
void pe_rep_int(struct pe_rnode *parent, const char *key, int64_t v);
void pe_rep_bool(struct pe_rnode *parent, const char *key, int v);
void pe_rep_null(struct pe_rnode *parent, const char *key);
void pe_rep_str(struct pe_rnode *parent, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* A float32 value: written as the shortest decimal that reads back to it
 * as a float32 (io/fmt.h), everywhere. */
void pe_rep_f32(struct pe_rnode *parent, const char *key, float v);
/* A list of n numbers. */
void pe_rep_nums(struct pe_rnode *parent, const char *key, const double *v, size_t n);

/* A param: the record {"origin": origin, "key": srckey} (key left out when
 * srckey is NULL or empty) as member key of parent; add its "value" (and
 * optionally a "note", text). */
struct pe_rnode *pe_rep_param(struct pe_rnode *parent, const char *key, const char *origin,
			      const char *srckey);

/* Members of a record, items of a list: the number of them. */
size_t pe_rep_count(const struct pe_rnode *n);

/* Write the whole report.  Return 0, or -1 (PE_ERR_NOMEM when an add ran
 * out of memory, PE_ERR_IO when fp reports a write error). */
int pe_report_json(FILE *fp, const struct pe_report *r, struct pe_error *err);
int pe_report_text(FILE *fp, const struct pe_report *r, struct pe_error *err);

/* The list of flat records list (a node of r) as csv. */
int pe_report_csv(FILE *fp, const struct pe_report *r, const struct pe_rnode *list,
		  struct pe_error *err);

#endif
