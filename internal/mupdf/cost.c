// The start check's measure of what a PDF's pages run (cost.go): the
// decoded bytes of their content streams and the form XObjects those
// invoke, counting every use, without interpreting any operator but Do.
// MuPDF's go-fitz build ships no PDF headers, so the few PDF functions
// used are declared here with the signatures of MuPDF 1.24.
#include "bp.h"

#include <stdio.h>
#include <string.h>

typedef struct pdf_document pdf_document;
typedef struct pdf_obj pdf_obj;
pdf_document *pdf_specifics(fz_context *ctx, fz_document *doc);
pdf_obj *pdf_lookup_page_obj(fz_context *ctx, pdf_document *doc, int needle);
pdf_obj *pdf_dict_gets(fz_context *ctx, pdf_obj *dict, const char *key);
fz_stream *pdf_open_stream(fz_context *ctx, pdf_obj *ref);
int pdf_mark_obj(fz_context *ctx, pdf_obj *obj);
void pdf_unmark_obj(fz_context *ctx, pdf_obj *obj);
const char *pdf_to_name(fz_context *ctx, pdf_obj *obj);
int pdf_to_num(fz_context *ctx, pdf_obj *obj);
int pdf_is_stream(fz_context *ctx, pdf_obj *obj);
int pdf_is_array(fz_context *ctx, pdf_obj *obj);
int pdf_is_dict(fz_context *ctx, pdf_obj *obj);
int pdf_array_len(fz_context *ctx, pdf_obj *array);
pdf_obj *pdf_array_get(fz_context *ctx, pdf_obj *array, int i);

// A form's cost, remembered per (form, resources) object numbers.
typedef struct {
	int num, res; // num 0: empty slot
	int64_t bytes, uses;
	int depth;
} bp_memo;

typedef struct {
	fz_context *ctx;
	bp_cost_limits lim;
	bp_memo *memo;
	int nmemo, capmemo;
	int over; // a limit was passed: unwind
} bp_coster;

static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static unsigned bp_hash(int num, int res) { return (unsigned)num * 2654435761u ^ (unsigned)res * 40503u; }

static bp_memo *memo_find(bp_coster *c, int num, int res)
{
	if (c->capmemo == 0)
		return NULL;
	for (unsigned i = bp_hash(num, res) & (c->capmemo - 1);; i = (i + 1) & (c->capmemo - 1)) {
		bp_memo *m = &c->memo[i];
		if (m->num == 0)
			return NULL;
		if (m->num == num && m->res == res)
			return m;
	}
}

static void memo_put(bp_coster *c, bp_memo e)
{
	if (2 * (c->nmemo + 1) > c->capmemo) {
		int cap = c->capmemo ? 2 * c->capmemo : 64;
		bp_memo *old = c->memo;
		int oldcap = c->capmemo;
		c->memo = fz_calloc(c->ctx, cap, sizeof(bp_memo));
		c->capmemo = cap;
		c->nmemo = 0;
		for (int i = 0; i < oldcap; i++)
			if (old[i].num)
				memo_put(c, old[i]);
		fz_free(c->ctx, old);
	}
	unsigned i = bp_hash(e.num, e.res) & (c->capmemo - 1);
	while (c->memo[i].num)
		i = (i + 1) & (c->capmemo - 1);
	c->memo[i] = e;
	c->nmemo++;
}

static int is_white(int ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == 0; }
static int is_delim(int ch) { return ch == '(' || ch == ')' || ch == '<' || ch == '>' || ch == '[' || ch == ']' || ch == '{' || ch == '}' || ch == '/' || ch == '%'; }

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

// skip_inline_image skips an inline image's data after ID, up to and
// including the EI that follows white space.
static void skip_inline_image(fz_context *ctx, fz_stream *stm)
{
	int p2 = ' ', p1 = ' ', ch; // the two bytes before ch
	while ((ch = fz_read_byte(ctx, stm)) != EOF) {
		if (is_white(p2) && p1 == 'E' && ch == 'I') {
			int next = fz_peek_byte(ctx, stm);
			if (next == EOF || is_white(next) || is_delim(next))
				return;
		}
		p2 = p1;
		p1 = ch;
	}
}

static void stream_cost(bp_coster *c, pdf_obj *stm, pdf_obj *res, int depth, int64_t *bytes, int64_t *uses, int *deep);

// do_cost adds the cost of invoking XObject name of res.
static void do_cost(bp_coster *c, pdf_obj *res, const char *name, int depth, int64_t *bytes, int64_t *uses, int *deep)
{
	fz_context *ctx = c->ctx;
	pdf_obj *xobjs = pdf_dict_gets(ctx, res, "XObject");
	pdf_obj *x = xobjs ? pdf_dict_gets(ctx, xobjs, name) : NULL;
	if (!x || !pdf_is_stream(ctx, x))
		return;
	const char *sub = pdf_to_name(ctx, pdf_dict_gets(ctx, x, "Subtype"));
	if (strcmp(sub, "Form") != 0)
		return;
	*uses = sat_add(*uses, 1);
	if (depth + 1 > *deep)
		*deep = depth + 1;
	if (depth + 1 > c->lim.max_depth) {
		c->over = 1;
		return;
	}
	pdf_obj *own = pdf_dict_gets(ctx, x, "Resources");
	pdf_obj *r = own ? own : res;
	int num = pdf_to_num(ctx, x), rnum = pdf_to_num(ctx, r);
	bp_memo *m = num ? memo_find(c, num, rnum) : NULL;
	if (m) {
		*bytes = sat_add(*bytes, m->bytes);
		*uses = sat_add(*uses, m->uses);
		if (depth + 1 + m->depth > *deep)
			*deep = depth + 1 + m->depth;
		return;
	}
	if (pdf_mark_obj(ctx, x))
		return; // a form that runs itself: MuPDF refuses the cycle
	int64_t b = 0, u = 0;
	int d = 0;
	fz_try(ctx)
		stream_cost(c, x, r, 0, &b, &u, &d);
	fz_always(ctx)
		pdf_unmark_obj(ctx, x);
	fz_catch(ctx)
		fz_rethrow(ctx);
	if (num && !c->over)
		memo_put(c, (bp_memo){num, rnum, b, u, d});
	*bytes = sat_add(*bytes, b);
	*uses = sat_add(*uses, u);
	if (depth + 1 + d > *deep)
		*deep = depth + 1 + d;
	if (depth + 1 + d > c->lim.max_depth)
		c->over = 1;
}

// stream_cost reads content stream stm (run with resources res, depth
// forms deep) and adds its decoded bytes, the form invocations it makes
// and, through them, theirs.
static void stream_cost(bp_coster *c, pdf_obj *stm, pdf_obj *res, int depth, int64_t *bytes, int64_t *uses, int *deep)
{
	fz_context *ctx = c->ctx;
	fz_stream *s = NULL;
	char name[128];
	int named = 0; // name holds the last name token
	fz_var(s);
	fz_try(ctx) {
		s = pdf_open_stream(ctx, stm);
		int ch = fz_read_byte(ctx, s);
		while (ch != EOF && !c->over) {
			if (is_white(ch)) {
				ch = fz_read_byte(ctx, s);
			} else if (ch == '%') {
				while (ch != EOF && ch != '\n' && ch != '\r')
					ch = fz_read_byte(ctx, s);
			} else if (ch == '/') {
				int n = 0;
				ch = fz_read_byte(ctx, s);
				while (ch != EOF && !is_white(ch) && !is_delim(ch)) {
					if (ch == '#') {
						int h1 = hexval(fz_peek_byte(ctx, s));
						if (h1 >= 0) {
							fz_read_byte(ctx, s);
							int h2 = hexval(fz_peek_byte(ctx, s));
							if (h2 >= 0) {
								fz_read_byte(ctx, s);
								ch = h1 * 16 + h2;
							}
						}
					}
					if (n < (int)sizeof name - 1)
						name[n++] = (char)ch;
					ch = fz_read_byte(ctx, s);
				}
				name[n] = 0;
				named = 1;
			} else if (ch == '(') {
				int level = 1;
				while (level > 0 && (ch = fz_read_byte(ctx, s)) != EOF) {
					if (ch == '\\')
						fz_read_byte(ctx, s);
					else if (ch == '(')
						level++;
					else if (ch == ')')
						level--;
				}
				named = 0;
				ch = fz_read_byte(ctx, s);
			} else if (is_delim(ch)) {
				if (ch != '[' && ch != ']')
					named = 0;
				ch = fz_read_byte(ctx, s);
			} else {
				char kw[4];
				int n = 0;
				while (ch != EOF && !is_white(ch) && !is_delim(ch)) {
					if (n < 3)
						kw[n] = (char)ch;
					n++;
					ch = fz_read_byte(ctx, s);
				}
				if (n == 2 && kw[0] == 'D' && kw[1] == 'o') {
					if (named)
						do_cost(c, res, name, depth, bytes, uses, deep);
				} else if (n == 2 && kw[0] == 'I' && kw[1] == 'D') {
					skip_inline_image(ctx, s);
					ch = fz_read_byte(ctx, s);
				}
				named = 0;
			}
		}
		*bytes = sat_add(*bytes, fz_tell(ctx, s));
		if (*bytes > c->lim.max_bytes || *uses > c->lim.max_uses)
			c->over = 1;
	}
	fz_always(ctx)
		fz_drop_stream(ctx, s);
	fz_catch(ctx)
		fz_rethrow(ctx);
}

// page_resources finds a page's /Resources, inherited from its parents.
static pdf_obj *page_resources(fz_context *ctx, pdf_obj *page)
{
	for (int i = 0; page && i < 64; i++) {
		pdf_obj *r = pdf_dict_gets(ctx, page, "Resources");
		if (r)
			return r;
		page = pdf_dict_gets(ctx, page, "Parent");
	}
	return NULL;
}

int bp_document_cost(bp_doc *d, bp_cost_limits lim, bp_cost *out, char *err, int errlen)
{
	fz_context *ctx = d->ctx;
	bp_coster c = {ctx, lim, NULL, 0, 0, 0};
	int rc = BP_OK;
	memset(out, 0, sizeof *out);
	out->worst_page = -1;
	fz_try(ctx) {
		pdf_document *pdf = pdf_specifics(ctx, d->doc);
		if (!pdf)
			fz_throw(ctx, FZ_ERROR_ARGUMENT, "not a PDF");
		int n = fz_count_pages(ctx, d->doc);
		for (int i = 0; i < n && !c.over; i++) {
			pdf_obj *page = pdf_lookup_page_obj(ctx, pdf, i);
			pdf_obj *res = page_resources(ctx, page);
			pdf_obj *contents = pdf_dict_gets(ctx, page, "Contents");
			int64_t bytes = 0, uses = 0;
			int deep = 0;
			if (pdf_is_array(ctx, contents)) {
				int k = pdf_array_len(ctx, contents);
				for (int j = 0; j < k && !c.over; j++) {
					pdf_obj *s = pdf_array_get(ctx, contents, j);
					if (pdf_is_stream(ctx, s))
						stream_cost(&c, s, res, 0, &bytes, &uses, &deep);
				}
			} else if (pdf_is_stream(ctx, contents)) {
				stream_cost(&c, contents, res, 0, &bytes, &uses, &deep);
			}
			out->bytes = sat_add(out->bytes, bytes);
			if (uses > out->uses || out->worst_page < 0) {
				out->uses = uses;
				out->worst_page = i;
			}
			if (deep > out->depth)
				out->depth = deep;
			if (c.over || out->bytes > lim.max_bytes || uses > lim.max_uses || deep > lim.max_depth) {
				out->worst_page = i;
				c.over = 1;
			}
		}
		out->stopped = c.over;
	}
	fz_always(ctx)
		fz_free(ctx, c.memo);
	fz_catch(ctx)
		rc = bp_caught(ctx, err, errlen);
	return rc;
}
