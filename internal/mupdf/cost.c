// The start check's measure of what a PDF's pages run (cost.go): the
// decoded bytes of their content streams and the form XObjects those
// invoke, counting every use, without interpreting any operator but Do.
// MuPDF's go-fitz build ships no PDF headers, so the few PDF functions
// used are declared here with the signatures of MuPDF 1.24.
#include "bp.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pdf_document pdf_document;
typedef struct pdf_obj pdf_obj;
pdf_document *pdf_specifics(fz_context *ctx, fz_document *doc);
pdf_obj *pdf_lookup_page_obj(fz_context *ctx, pdf_document *doc, int needle);
pdf_obj *pdf_dict_gets(fz_context *ctx, pdf_obj *dict, const char *key);
fz_stream *pdf_open_stream(fz_context *ctx, pdf_obj *ref);
int pdf_mark_obj(fz_context *ctx, pdf_obj *obj);
int pdf_obj_marked(fz_context *ctx, pdf_obj *obj);
void pdf_unmark_obj(fz_context *ctx, pdf_obj *obj);
const char *pdf_to_name(fz_context *ctx, pdf_obj *obj);
int pdf_to_num(fz_context *ctx, pdf_obj *obj);
int pdf_is_stream(fz_context *ctx, pdf_obj *obj);
int pdf_is_array(fz_context *ctx, pdf_obj *obj);
int pdf_is_dict(fz_context *ctx, pdf_obj *obj);
int pdf_array_len(fz_context *ctx, pdf_obj *array);
pdf_obj *pdf_array_get(fz_context *ctx, pdf_obj *array, int i);

float pdf_to_real(fz_context *ctx, pdf_obj *obj);
int pdf_to_int(fz_context *ctx, pdf_obj *obj);
int pdf_dict_len(fz_context *ctx, pdf_obj *dict);
pdf_obj *pdf_dict_get_val(fz_context *ctx, pdf_obj *dict, int idx);

// What a content stream runs: its decoded bytes, the form invocations it
// makes, how deep forms and patterns nest below it, and the drawing
// operations it asks of a device, counted as the walk counts them
// (drawing.Limits.MaxOps): each painting operator, clip, image, shading
// and glyph is one; a glyph of a Type 3 font its glyph procedure's
// operations; a tiling pattern's cell its content's operations, once per
// cell of the area it fills.
typedef struct {
	int64_t bytes, uses, ops;
	int deep;
} bp_acc;

// A form's, pattern's or Type 3 font's cost, remembered per (object,
// resources) object numbers.
typedef struct {
	int num, res; // num 0: empty slot
	bp_acc acc;
} bp_memo;

typedef struct {
	fz_context *ctx;
	bp_cost_limits lim;
	fz_cookie *cookie; // abort: stop with FZ_ERROR_ABORT
	bp_memo *memo;
	int nmemo, capmemo;
	int over; // a limit was passed: unwind
	unsigned ticks; // operators read since the cookie was last looked at
} bp_coster;

static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

// sat_mul multiplies two non-negative counts, saturating.
static int64_t sat_mul(int64_t a, int64_t b)
{
	if (a == 0 || b == 0)
		return 0;
	return a > INT64_MAX / b ? INT64_MAX : a * b;
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

// obj_rect reads a rectangle array (normalised), or infinite when obj is
// not one.
static fz_rect obj_rect(fz_context *ctx, pdf_obj *obj)
{
	if (!pdf_is_array(ctx, obj) || pdf_array_len(ctx, obj) < 4)
		return fz_infinite_rect;
	float v[4];
	for (int i = 0; i < 4; i++)
		v[i] = pdf_to_real(ctx, pdf_array_get(ctx, obj, i));
	return fz_make_rect(fz_min(v[0], v[2]), fz_min(v[1], v[3]), fz_max(v[0], v[2]), fz_max(v[1], v[3]));
}

// obj_matrix reads a matrix array, identity when obj is not one.
static fz_matrix obj_matrix(fz_context *ctx, pdf_obj *obj)
{
	if (!pdf_is_array(ctx, obj) || pdf_array_len(ctx, obj) < 6)
		return fz_identity;
	float v[6];
	for (int i = 0; i < 6; i++)
		v[i] = pdf_to_real(ctx, pdf_array_get(ctx, obj, i));
	return fz_make_matrix(v[0], v[1], v[2], v[3], v[4], v[5]);
}

// A graphics state as far as costing needs it: the transform from user
// space to the stream's own space, the clip's box in the stream's space,
// and the fill and stroke patterns (NULL: a colour).
typedef struct {
	fz_matrix ctm;
	fz_rect clip;
	pdf_obj *fillpat, *strokepat;
	pdf_obj *font;
	int64_t smask; // a soft mask's operations, run again for every object painted under it
} bp_gs;

enum { BP_GS_MAX = 64, BP_NUMS = 6 };

// The state of one content stream being costed.
typedef struct {
	pdf_obj *res;
	bp_gs gs[BP_GS_MAX];
	int gtop, gover; // gover: q beyond BP_GS_MAX, not saved
	fz_rect path;    // the current path's box in the stream's space
	int clipping;    // W or W* seen: the path narrows the clip once painted
	double nums[BP_NUMS];
	int nnum;
} bp_stream;

static void stream_cost(bp_coster *c, pdf_obj *stm, pdf_obj *res, fz_rect clip, int depth, bp_acc *acc);

static void add_acc(bp_acc *to, const bp_acc *a, int depth)
{
	to->bytes = sat_add(to->bytes, a->bytes);
	to->uses = sat_add(to->uses, a->uses);
	to->ops = sat_add(to->ops, a->ops);
	if (depth + a->deep > to->deep)
		to->deep = depth + a->deep;
}

// sub_cost costs content stream x run with resources r at depth + 1
// (a form, a pattern's cell, a Type 3 glyph), remembered per object: its
// cost does not depend on where it is used. kind separates the memo of
// a font (whose glyphs' cost is the most of one glyph) from a stream.
static int sub_cost(bp_coster *c, pdf_obj *x, pdf_obj *r, fz_rect clip, int depth, bp_acc *out)
{
	fz_context *ctx = c->ctx;
	memset(out, 0, sizeof *out);
	if (depth + 1 > c->lim.max_depth) {
		out->deep = 1;
		c->over = 1;
		return 0;
	}
	int num = pdf_to_num(ctx, x), rnum = pdf_to_num(ctx, r);
	bp_memo *m = num ? memo_find(c, num, rnum) : NULL;
	if (m) {
		*out = m->acc;
		return 1;
	}
	if (pdf_mark_obj(ctx, x))
		return 0; // content that runs itself: MuPDF refuses the cycle
	fz_try(ctx)
		stream_cost(c, x, r, clip, 0, out);
	fz_always(ctx)
		pdf_unmark_obj(ctx, x);
	fz_catch(ctx)
		fz_rethrow(ctx);
	out->deep += 1;
	if (num && !c->over)
		memo_put(c, (bp_memo){num, rnum, *out});
	return 1;
}

// do_cost adds the cost of invoking XObject name of res.
static void do_cost(bp_coster *c, pdf_obj *res, const char *name, int depth, bp_acc *acc)
{
	fz_context *ctx = c->ctx;
	pdf_obj *xobjs = pdf_dict_gets(ctx, res, "XObject");
	pdf_obj *x = xobjs ? pdf_dict_gets(ctx, xobjs, name) : NULL;
	if (!x || !pdf_is_stream(ctx, x))
		return;
	const char *sub = pdf_to_name(ctx, pdf_dict_gets(ctx, x, "Subtype"));
	if (strcmp(sub, "Form") != 0) {
		acc->ops = sat_add(acc->ops, 1); // an image
		return;
	}
	acc->uses = sat_add(acc->uses, 1);
	pdf_obj *own = pdf_dict_gets(ctx, x, "Resources");
	bp_acc a;
	sub_cost(c, x, own ? own : res, obj_rect(ctx, pdf_dict_gets(ctx, x, "BBox")), depth, &a);
	add_acc(acc, &a, depth);
	if (acc->deep > c->lim.max_depth)
		c->over = 1;
}

// nests_forever records content that runs itself where MuPDF does not
// stop the cycle (a tiling pattern's cell painting with the pattern, a
// Type 3 glyph showing text in its own font): MuPDF nests it until its
// exception stack overflows, so it counts as nesting past the limit.
static void nests_forever(bp_coster *c, bp_acc *acc)
{
	int past = c->lim.max_depth < INT_MAX / 2 ? c->lim.max_depth + 1 : INT_MAX / 2;
	if (past > acc->deep)
		acc->deep = past;
	c->over = 1;
}

// pattern_cost is the operations of painting pattern pat over area (a
// box in the space the pattern is defined in): a shading pattern is one;
// a tiling pattern is its cell's operations (at least one) times the
// cells that cover the area, as MuPDF's draw device paints them.
static void pattern_cost(bp_coster *c, pdf_obj *pat, fz_rect area, int depth, bp_acc *acc)
{
	fz_context *ctx = c->ctx;
	if (pdf_to_int(ctx, pdf_dict_gets(ctx, pat, "PatternType")) != 1 || !pdf_is_stream(ctx, pat)) {
		acc->ops = sat_add(acc->ops, 1);
		return;
	}
	if (pdf_obj_marked(ctx, pat)) {
		// The pattern's cell paints with the pattern itself: MuPDF does
		// not stop the cycle (as it does a form's), it nests cells until
		// its exception stack overflows, so the cycle counts as nesting
		// past the limit, whatever area the inner paint covers.
		nests_forever(c, acc);
		return;
	}
	float xstep = fabsf(pdf_to_real(ctx, pdf_dict_gets(ctx, pat, "XStep")));
	float ystep = fabsf(pdf_to_real(ctx, pdf_dict_gets(ctx, pat, "YStep")));
	if (!(xstep > FLT_EPSILON))
		xstep = 1; // as MuPDF reads a zero step
	if (!(ystep > FLT_EPSILON))
		ystep = 1;
	fz_matrix m = obj_matrix(ctx, pdf_dict_gets(ctx, pat, "Matrix"));
	double cells;
	if (fz_is_infinite_rect(area) || fz_is_empty_rect(area)) {
		cells = fz_is_empty_rect(area) ? 0 : INFINITY;
	} else {
		fz_rect p = fz_transform_rect(area, fz_invert_matrix(m));
		// The draw device covers the area with whole cells, one more each
		// way for the cell's own extent.
		cells = (floor((double)(p.x1 - p.x0) / xstep) + 2) * (floor((double)(p.y1 - p.y0) / ystep) + 2);
	}
	if (!(cells >= 0) || fz_is_infinite_rect(area))
		cells = fz_is_empty_rect(area) ? 0 : (double)INT64_MAX;
	// The cell is read even when no cell is painted: MuPDF runs a
	// pattern's content for the walk whatever the area, so its nesting
	// (and a cell that paints with its own pattern) counts.
	pdf_obj *r = pdf_dict_gets(ctx, pat, "Resources");
	bp_acc a;
	sub_cost(c, pat, r, obj_rect(ctx, pdf_dict_gets(ctx, pat, "BBox")), depth, &a);
	int64_t n = cells >= 9.2e18 ? INT64_MAX : (int64_t)cells;
	if (n > 0)
		acc->ops = sat_add(acc->ops, sat_mul(n, a.ops > 0 ? a.ops : 1));
	if (depth + a.deep > acc->deep)
		acc->deep = depth + a.deep;
	if (acc->deep > c->lim.max_depth)
		c->over = 1;
}

// font_glyph_ops is the most operations one glyph of font costs: one,
// or for a Type 3 font the most of any of its glyph procedures (each
// glyph shown runs its procedure), remembered per font.
static int64_t font_glyph_ops(bp_coster *c, pdf_obj *font, pdf_obj *res, int depth, bp_acc *acc)
{
	fz_context *ctx = c->ctx;
	if (!font || strcmp(pdf_to_name(ctx, pdf_dict_gets(ctx, font, "Subtype")), "Type3") != 0)
		return 1;
	int num = pdf_to_num(ctx, font);
	bp_memo *m = num ? memo_find(c, num, -1) : NULL;
	if (m)
		return m->acc.ops;
	pdf_obj *procs = pdf_dict_gets(ctx, font, "CharProcs");
	pdf_obj *own = pdf_dict_gets(ctx, font, "Resources");
	int64_t most = 1;
	int deep = 0;
	if (pdf_mark_obj(ctx, font)) {
		nests_forever(c, acc); // a glyph procedure showing text in its own font
		return 1;
	}
	fz_try(ctx) {
		int n = pdf_dict_len(ctx, procs);
		for (int i = 0; i < n && !c->over; i++) {
			pdf_obj *p = pdf_dict_get_val(ctx, procs, i);
			if (!pdf_is_stream(ctx, p))
				continue;
			bp_acc a;
			sub_cost(c, p, own ? own : res, fz_infinite_rect, depth, &a);
			if (a.ops > most)
				most = a.ops;
			if (a.deep > deep)
				deep = a.deep;
		}
	}
	fz_always(ctx)
		pdf_unmark_obj(ctx, font);
	fz_catch(ctx)
		fz_rethrow(ctx);
	if (depth + deep > acc->deep)
		acc->deep = depth + deep;
	if (num && !c->over)
		memo_put(c, (bp_memo){num, -1, {0, 0, most, deep}});
	return most;
}

// smask_ops is the operations of the soft mask an ExtGState sets (its
// group form's, at least one), 0 when it sets none or removes it, -1 when
// it leaves the soft mask as it was.
static int64_t smask_ops(bp_coster *c, pdf_obj *gs, int depth, bp_acc *acc)
{
	fz_context *ctx = c->ctx;
	pdf_obj *sm = pdf_dict_gets(ctx, gs, "SMask");
	if (!sm)
		return -1;
	pdf_obj *g = pdf_is_dict(ctx, sm) ? pdf_dict_gets(ctx, sm, "G") : NULL;
	if (!g || !pdf_is_stream(ctx, g))
		return 0; // /None
	pdf_obj *own = pdf_dict_gets(ctx, g, "Resources");
	bp_acc a;
	sub_cost(c, g, own, obj_rect(ctx, pdf_dict_gets(ctx, g, "BBox")), depth, &a);
	if (depth + a.deep > acc->deep)
		acc->deep = depth + a.deep;
	return a.ops > 0 ? a.ops : 1;
}

// painted charges the soft mask in force for n objects painted.
static void painted(bp_stream *st, int64_t n, bp_acc *acc)
{
	int64_t m = st->gs[st->gtop].smask;
	if (m > 0)
		acc->ops = sat_add(acc->ops, sat_mul(n, m));
}

static void path_point(bp_stream *st, double x, double y)
{
	fz_point p = fz_transform_point(fz_make_point(x, y), st->gs[st->gtop].ctm);
	st->path = fz_include_point_in_rect(st->path, p);
}

// paint charges painting the current path (fill and/or stroke), narrows
// the clip when W was given, and ends the path.
static void paint(bp_coster *c, bp_stream *st, int fill, int stroke, int depth, bp_acc *acc)
{
	bp_gs *g = &st->gs[st->gtop];
	fz_rect area = fz_intersect_rect(st->path, g->clip);
	if (fill || stroke) {
		acc->ops = sat_add(acc->ops, 1);
		painted(st, 1, acc);
	}
	if (fill && g->fillpat)
		pattern_cost(c, g->fillpat, area, depth, acc);
	if (stroke && g->strokepat)
		pattern_cost(c, g->strokepat, area, depth, acc);
	if (st->clipping) {
		acc->ops = sat_add(acc->ops, 1);
		g->clip = area;
		st->clipping = 0;
	}
	st->path = fz_empty_rect;
}

// show_text charges n glyphs shown with the current font and fill.
static void show_text(bp_coster *c, bp_stream *st, int64_t n, int depth, bp_acc *acc)
{
	bp_gs *g = &st->gs[st->gtop];
	if (n <= 0)
		return;
	acc->ops = sat_add(acc->ops, sat_mul(n, font_glyph_ops(c, g->font, st->res, depth, acc)));
	painted(st, 1, acc); // a text object is one group under the mask
	if (g->fillpat)
		pattern_cost(c, g->fillpat, g->clip, depth, acc); // the glyphs' box is not known: the clip's
}

static pdf_obj *resource(fz_context *ctx, pdf_obj *res, const char *kind, const char *name)
{
	pdf_obj *d = pdf_dict_gets(ctx, res, kind);
	return d ? pdf_dict_gets(ctx, d, name) : NULL;
}

// stream_cost reads content stream stm (run with resources res, depth
// forms and patterns deep, clipped to clip in its own space) and adds its
// decoded bytes, the form invocations it makes, the operations it draws
// and, through the forms, patterns and Type 3 glyphs it uses, theirs.
static void stream_cost(bp_coster *c, pdf_obj *stm, pdf_obj *res, fz_rect clip, int depth, bp_acc *acc)
{
	fz_context *ctx = c->ctx;
	fz_stream *s = NULL;
	char name[128];
	char tok[64];
	int named = 0; // name holds a name operand of the coming operator
	int64_t strbytes = 0; // glyph bytes of the strings since the last operator
	bp_stream *st = fz_malloc_struct(ctx, bp_stream);
	st->res = res;
	st->gs[0].ctm = fz_identity;
	st->gs[0].clip = clip;
	st->path = fz_empty_rect;
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
					strbytes++;
					if (ch == '\\')
						fz_read_byte(ctx, s);
					else if (ch == '(')
						level++;
					else if (ch == ')')
						level--;
				}
				strbytes--; // the closing parenthesis
				ch = fz_read_byte(ctx, s);
			} else if (ch == '<' && fz_peek_byte(ctx, s) == '<') {
				fz_read_byte(ctx, s); // a dictionary
				ch = fz_read_byte(ctx, s);
			} else if (ch == '<') {
				int digits = 0;
				while ((ch = fz_read_byte(ctx, s)) != EOF && ch != '>')
					if (hexval(ch) >= 0)
						digits++;
				strbytes += (digits + 1) / 2;
				ch = fz_read_byte(ctx, s);
			} else if (is_delim(ch)) {
				ch = fz_read_byte(ctx, s);
			} else {
				int n = 0;
				while (ch != EOF && !is_white(ch) && !is_delim(ch)) {
					if (n < (int)sizeof tok - 1)
						tok[n] = (char)ch;
					n++;
					ch = fz_read_byte(ctx, s);
				}
				tok[n < (int)sizeof tok ? n : (int)sizeof tok - 1] = 0;
				char *end;
				double v = strtod(tok, &end);
				if (n > 0 && n < (int)sizeof tok && end == tok + n && (tok[0] == '-' || tok[0] == '+' || tok[0] == '.' || (tok[0] >= '0' && tok[0] <= '9'))) {
					if (st->nnum == BP_NUMS) {
						memmove(st->nums, st->nums + 1, (BP_NUMS - 1) * sizeof st->nums[0]);
						st->nnum--;
					}
					st->nums[st->nnum++] = isfinite(v) ? v : 0;
					continue;
				}
				if (++c->ticks >= 4096) {
					c->ticks = 0;
					if (c->cookie && c->cookie->abort)
						fz_throw(ctx, FZ_ERROR_ABORT, "cost aborted");
				}
				bp_gs *g = &st->gs[st->gtop];
				const double *a = st->nums + st->nnum - 6; // the last six operands
				int have = st->nnum;
				#define OP(x) (strcmp(tok, x) == 0)
				if (OP("Do")) {
					if (named) {
						do_cost(c, st->res, name, depth, acc);
						painted(st, 1, acc);
					}
				} else if (OP("gs")) {
					pdf_obj *e = named ? resource(ctx, st->res, "ExtGState", name) : NULL;
					int64_t m = e ? smask_ops(c, e, depth, acc) : -1;
					if (m >= 0)
						g->smask = m;
				} else if (OP("ID")) {
					acc->ops = sat_add(acc->ops, 1);
					painted(st, 1, acc);
					skip_inline_image(ctx, s);
					ch = fz_read_byte(ctx, s);
				} else if (OP("q")) {
					if (st->gtop + 1 < BP_GS_MAX) {
						st->gs[st->gtop + 1] = *g;
						st->gtop++;
					} else {
						st->gover++;
					}
				} else if (OP("Q")) {
					if (st->gover > 0)
						st->gover--;
					else if (st->gtop > 0)
						st->gtop--;
				} else if (OP("cm") && have >= 6) {
					g->ctm = fz_concat(fz_make_matrix(a[0], a[1], a[2], a[3], a[4], a[5]), g->ctm);
				} else if ((OP("m") || OP("l")) && have >= 2) {
					path_point(st, st->nums[st->nnum - 2], st->nums[st->nnum - 1]);
				} else if (OP("c") && have >= 6) {
					path_point(st, a[0], a[1]);
					path_point(st, a[2], a[3]);
					path_point(st, a[4], a[5]);
				} else if ((OP("v") || OP("y")) && have >= 4) {
					path_point(st, a[2], a[3]);
					path_point(st, a[4], a[5]);
				} else if (OP("re") && have >= 4) {
					const double *r = st->nums + st->nnum - 4;
					path_point(st, r[0], r[1]);
					path_point(st, r[0] + r[2], r[1] + r[3]);
					path_point(st, r[0] + r[2], r[1]);
					path_point(st, r[0], r[1] + r[3]);
				} else if (OP("W") || OP("W*")) {
					st->clipping = 1;
				} else if (OP("n")) {
					paint(c, st, 0, 0, depth, acc);
				} else if (OP("f") || OP("F") || OP("f*")) {
					paint(c, st, 1, 0, depth, acc);
				} else if (OP("S") || OP("s")) {
					paint(c, st, 0, 1, depth, acc);
				} else if (OP("B") || OP("B*") || OP("b") || OP("b*")) {
					paint(c, st, 1, 1, depth, acc);
				} else if (OP("sh")) {
					acc->ops = sat_add(acc->ops, 1);
					painted(st, 1, acc);
				} else if (OP("cs") || OP("g") || OP("rg") || OP("k")) {
					g->fillpat = NULL;
				} else if (OP("CS") || OP("G") || OP("RG") || OP("K")) {
					g->strokepat = NULL;
				} else if (OP("scn") || OP("SCN") || OP("sc") || OP("SC")) {
					// MuPDF reads a pattern name given to sc as to scn.
					pdf_obj *p = named ? resource(ctx, st->res, "Pattern", name) : NULL;
					if (OP("scn") || OP("sc"))
						g->fillpat = p;
					else
						g->strokepat = p;
				} else if (OP("Tf")) {
					g->font = named ? resource(ctx, st->res, "Font", name) : NULL;
				} else if (OP("Tj") || OP("TJ") || OP("'") || OP("\"")) {
					show_text(c, st, strbytes, depth, acc);
				}
				#undef OP
				named = 0;
				st->nnum = 0;
				strbytes = 0;
				if (acc->ops > c->lim.max_ops)
					c->over = 1;
			}
		}
		acc->bytes = sat_add(acc->bytes, fz_tell(ctx, s));
		if (acc->bytes > c->lim.max_bytes || acc->uses > c->lim.max_uses || acc->ops > c->lim.max_ops)
			c->over = 1;
	}
	fz_always(ctx) {
		fz_drop_stream(ctx, s);
		fz_free(ctx, st);
	}
	fz_catch(ctx)
		fz_rethrow(ctx);
}

// page_inherited finds a page's key, inherited from its parents.
static pdf_obj *page_inherited(fz_context *ctx, pdf_obj *page, const char *key)
{
	for (int i = 0; page && i < 64; i++) {
		pdf_obj *r = pdf_dict_gets(ctx, page, key);
		if (r)
			return r;
		page = pdf_dict_gets(ctx, page, "Parent");
	}
	return NULL;
}

int bp_document_cost(bp_doc *d, bp_cost_limits lim, fz_cookie *cookie, bp_cost *out, char *err, int errlen)
{
	fz_context *ctx = d->ctx;
	bp_coster c = {ctx, lim, cookie, NULL, 0, 0, 0, 0};
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
			pdf_obj *res = page_inherited(ctx, page, "Resources");
			pdf_obj *contents = pdf_dict_gets(ctx, page, "Contents");
			// What is drawn outside the page box is not painted: the clip
			// starts as the MediaBox (the CropBox lies inside it).
			fz_rect box = obj_rect(ctx, page_inherited(ctx, page, "MediaBox"));
			bp_acc acc = {0};
			if (pdf_is_array(ctx, contents)) {
				int k = pdf_array_len(ctx, contents);
				for (int j = 0; j < k && !c.over; j++) {
					pdf_obj *s = pdf_array_get(ctx, contents, j);
					if (pdf_is_stream(ctx, s))
						stream_cost(&c, s, res, box, 0, &acc);
				}
			} else if (pdf_is_stream(ctx, contents)) {
				stream_cost(&c, contents, res, box, 0, &acc);
			}
			out->bytes = sat_add(out->bytes, acc.bytes);
			if (acc.uses > out->uses || out->worst_page < 0) {
				out->uses = acc.uses;
				out->worst_page = i;
			}
			if (acc.ops > out->ops) {
				out->ops = acc.ops;
				out->ops_page = i;
			}
			if (acc.deep > out->depth)
				out->depth = acc.deep;
			if (c.over || out->bytes > lim.max_bytes || acc.uses > lim.max_uses || acc.deep > lim.max_depth || acc.ops > lim.max_ops) {
				out->worst_page = i;
				out->ops_page = i;
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

int pdf_xref_len(fz_context *ctx, pdf_document *doc);
int pdf_obj_num_is_stream(fz_context *ctx, pdf_document *doc, int num);
pdf_obj *pdf_load_object(fz_context *ctx, pdf_document *doc, int num);
void pdf_drop_obj(fz_context *ctx, pdf_obj *obj);
fz_stream *pdf_open_stream_number(fz_context *ctx, pdf_document *doc, int num);

int bp_is_encrypted(bp_doc *d)
{
	fz_context *ctx = d->ctx;
	char buf[64] = "";
	int enc = 0;
	fz_try(ctx) {
		if (fz_lookup_metadata(ctx, d->doc, FZ_META_ENCRYPTION, buf, sizeof buf) > 0)
			enc = strcmp(buf, "None") != 0;
	}
	fz_catch(ctx)
		fz_report_error(ctx);
	return enc;
}

// bp_stream_bytes decodes (decrypting) every stream of the document but
// image XObjects and counts the bytes, stopping past limit: the
// decompression check of a file whose streams are encrypted, which the
// check on the raw bytes cannot inflate. A stream that fails to decode
// counts what it gave.
int bp_stream_bytes(bp_doc *d, int64_t limit, int64_t *out, char *err, int errlen)
{
	fz_context *ctx = d->ctx;
	int rc = BP_OK;
	*out = 0;
	fz_try(ctx) {
		pdf_document *pdf = pdf_specifics(ctx, d->doc);
		if (!pdf)
			fz_throw(ctx, FZ_ERROR_ARGUMENT, "not a PDF");
		int n = pdf_xref_len(ctx, pdf);
		for (int num = 1; num < n && *out <= limit; num++) {
			int image = 0;
			fz_stream *s = NULL;
			pdf_obj *obj = NULL;
			fz_var(s);
			fz_var(obj);
			fz_try(ctx) {
				if (pdf_obj_num_is_stream(ctx, pdf, num)) {
					obj = pdf_load_object(ctx, pdf, num);
					image = strcmp(pdf_to_name(ctx, pdf_dict_gets(ctx, obj, "Subtype")), "Image") == 0;
					if (!image) {
						s = pdf_open_stream_number(ctx, pdf, num);
						while (*out <= limit) {
							size_t k = fz_skip(ctx, s, 1 << 16);
							if (k == 0)
								break;
							*out = sat_add(*out, (int64_t)k);
						}
					}
				}
			}
			fz_always(ctx) {
				fz_drop_stream(ctx, s);
				pdf_drop_obj(ctx, obj);
			}
			fz_catch(ctx)
				fz_report_error(ctx); // damaged: what it gave counts
		}
	}
	fz_catch(ctx)
		rc = bp_caught(ctx, err, errlen);
	return rc;
}
