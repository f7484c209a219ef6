// C side of package mupdf (see bp.h). Written against the MuPDF headers
// that go-fitz ships with the static library it links.
#include "bp.h"

#include <pthread.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// bpWalkFlush is the Go side of the walk stream (walk.go): it takes the
// words written so far; non-zero asks the walk to stop.
extern int bpWalkFlush(uintptr_t handle, uint32_t *words, size_t n);


static void bp_lock(void *user, int lock) { pthread_mutex_lock(&((bp_doc *)user)->mu[lock]); }
static void bp_unlock(void *user, int lock) { pthread_mutex_unlock(&((bp_doc *)user)->mu[lock]); }

// Errors reach Go as return codes and messages; MuPDF's own logging of
// warnings and errors to stderr is switched off.
static void bp_quiet(void *user, const char *message) { (void)user; (void)message; }

int bp_caught(fz_context *ctx, char *err, int errlen)
{
	int code = fz_caught(ctx);
	snprintf(err, errlen, "%s", fz_caught_message(ctx));
	fz_report_error(ctx);
	return code == FZ_ERROR_ABORT ? BP_ABORTED : BP_ERROR;
}

int bp_open(const unsigned char *data, size_t len, size_t store, bp_doc **out, char *err, int errlen)
{
	bp_doc *d = calloc(1, sizeof *d);
	fz_buffer *buf = NULL;
	fz_stream *stm = NULL;
	int rc = BP_OK;
	*out = NULL;
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return BP_ERROR;
	}
	for (int i = 0; i < FZ_LOCK_MAX; i++)
		pthread_mutex_init(&d->mu[i], NULL);
	d->locks.user = d;
	d->locks.lock = bp_lock;
	d->locks.unlock = bp_unlock;
	d->ctx = fz_new_context(NULL, &d->locks, store);
	if (!d->ctx) {
		snprintf(err, errlen, "cannot create a MuPDF context (the headers are not those of the linked library, " FZ_VERSION ")");
		bp_close(d);
		return BP_ERROR;
	}
	fz_context *ctx = d->ctx;
	fz_set_warning_callback(ctx, bp_quiet, NULL);
	fz_set_error_callback(ctx, bp_quiet, NULL);
	fz_var(buf);
	fz_var(stm);
	fz_try(ctx) {
		fz_register_document_handlers(ctx);
		buf = fz_new_buffer_from_copied_data(ctx, data, len);
		stm = fz_open_buffer(ctx, buf);
		d->doc = fz_open_document_with_stream(ctx, "application/pdf", stm);
		if (fz_needs_password(ctx, d->doc))
			rc = BP_NEEDS_PASSWORD;
	}
	fz_always(ctx) {
		fz_drop_stream(ctx, stm);
		fz_drop_buffer(ctx, buf);
	}
	fz_catch(ctx) {
		rc = bp_caught(ctx, err, errlen);
	}
	if (rc != BP_OK) {
		if (rc == BP_NEEDS_PASSWORD)
			snprintf(err, errlen, "the document needs a password");
		bp_close(d);
		return rc;
	}
	*out = d;
	return BP_OK;
}

void bp_close(bp_doc *d)
{
	if (!d)
		return;
	if (d->ctx) {
		fz_drop_document(d->ctx, d->doc);
		fz_drop_context(d->ctx);
	}
	for (int i = 0; i < FZ_LOCK_MAX; i++)
		pthread_mutex_destroy(&d->mu[i]);
	free(d);
}

int bp_count_pages(bp_doc *d, int *n, char *err, int errlen)
{
	fz_context *ctx = d->ctx;
	int rc = BP_OK;
	fz_try(ctx)
		*n = fz_count_pages(ctx, d->doc);
	fz_catch(ctx)
		rc = bp_caught(ctx, err, errlen);
	return rc;
}

static void bp_rect_out(fz_rect r, float rect[4])
{
	rect[0] = r.x0;
	rect[1] = r.y0;
	rect[2] = r.x1;
	rect[3] = r.y1;
}

int bp_page_bounds(bp_doc *d, int page, float rect[4], char *err, int errlen)
{
	fz_context *ctx = d->ctx;
	fz_page *p = NULL;
	int rc = BP_OK;
	fz_var(p);
	fz_try(ctx) {
		p = fz_load_page(ctx, d->doc, page);
		bp_rect_out(fz_bound_page(ctx, p), rect);
	}
	fz_always(ctx)
		fz_drop_page(ctx, p);
	fz_catch(ctx)
		rc = bp_caught(ctx, err, errlen);
	return rc;
}

// bp_load_list interprets a page's content into a display list, as
// fz_new_display_list_from_page_contents does, with a cookie that stops
// the interpretation.
int bp_load_list(bp_doc *d, int page, fz_display_list **list, float rect[4], fz_cookie *cookie, char *err, int errlen)
{
	fz_context *ctx = d->ctx;
	fz_page *p = NULL;
	fz_device *dev = NULL;
	fz_display_list *l = NULL;
	int rc = BP_OK;
	*list = NULL;
	fz_var(p);
	fz_var(dev);
	fz_var(l);
	fz_try(ctx) {
		p = fz_load_page(ctx, d->doc, page);
		fz_rect bounds = fz_bound_page(ctx, p);
		bp_rect_out(bounds, rect);
		l = fz_new_display_list(ctx, bounds);
		dev = fz_new_list_device(ctx, l);
		fz_run_page_contents(ctx, p, dev, fz_identity, cookie);
		fz_close_device(ctx, dev);
		if (cookie && cookie->abort)
			fz_throw(ctx, FZ_ERROR_ABORT, "interpretation aborted");
		*list = l;
		l = NULL;
	}
	fz_always(ctx) {
		fz_drop_device(ctx, dev);
		fz_drop_display_list(ctx, l);
		fz_drop_page(ctx, p);
	}
	fz_catch(ctx)
		rc = bp_caught(ctx, err, errlen);
	return rc;
}

void bp_drop_list(bp_doc *d, fz_display_list *list)
{
	fz_drop_display_list(d->ctx, list);
}

fz_cookie *bp_new_cookie(void) { return calloc(1, sizeof(fz_cookie)); }
void bp_abort(fz_cookie *c) { c->abort = 1; }
void bp_free_cookie(fz_cookie *c) { free(c); }

// bp_pixmap wraps dst (w × h RGBA, 4 bytes a pixel) cleared to opaque
// white: the raster go-fitz's ImageDPI produced.
static fz_pixmap *bp_pixmap(fz_context *ctx, int w, int h, unsigned char *dst)
{
	fz_pixmap *pix = fz_new_pixmap_with_bbox_and_data(ctx, fz_device_rgb(ctx), fz_make_irect(0, 0, w, h), NULL, 1, dst);
	fz_clear_pixmap_with_value(ctx, pix, 0xff);
	return pix;
}

fz_context *bp_clone(bp_doc *d) { return fz_clone_context(d->ctx); }
void bp_drop_clone(fz_context *ctx) { fz_drop_context(ctx); }

// ---- The render guard. ----
//
// MuPDF's draw device paints a tiling pattern by copying its cell once per
// cell of the area it fills, in one loop that no cookie stops: a 0.01 pt
// cell over an A1 page is 4 × 10^10 copies, hours in one call. And a call
// that draws (a text of Type 3 glyphs drawn as paths, say) looks at the
// cookie only between the display list's nodes. The render therefore runs
// into a draw device whose drawing calls go through the guard first: each
// looks at the cookie (the glyph procedures of Type 3 text call the same
// device, glyph by glyph), and a tile's cells are counted before they are
// painted, against the render's allowance (bp_render_list's max_cells):
// past it the device stops drawing and the render fails with BP_LIMIT.

typedef struct {
	fz_cookie *cookie;
	int64_t cells_left; // tile cells the render may still paint
	int over;           // the allowance was spent
	fz_rect raster;     // the raster, in device pixels
	fz_device saved;    // the draw device's own calls
} bp_guard;

// The guard of the render running on this thread (one render a thread at
// a time: each runs inside one cgo call).
static __thread bp_guard *bp_tls_guard;

static void guard_check(fz_context *ctx)
{
	bp_guard *g = bp_tls_guard;
	if (g && g->cookie && g->cookie->abort)
		fz_throw(ctx, FZ_ERROR_ABORT, "render aborted");
}

// bp_tile_cells is how many cells of a tile MuPDF's draw device paints
// at most to cover area within box (both in device space, ctm mapping
// pattern space to it): its loop covers the area's box in pattern space
// in steps, one cell more each way for the cell's own extent.
double bp_tile_cells(fz_rect area, fz_rect box, float xstep, float ystep, fz_matrix ctm)
{
	xstep = fabsf(xstep);
	ystep = fabsf(ystep);
	if (!(xstep > 0) || !(ystep > 0))
		return 1e300;
	fz_rect p = fz_intersect_rect(area, fz_transform_rect(box, fz_invert_matrix(ctm)));
	if (fz_is_empty_rect(p))
		return 0;
	if (fz_is_infinite_rect(p))
		return 1e300;
	double nx = floor(((double)p.x1 - p.x0) / xstep) + 2, ny = floor(((double)p.y1 - p.y0) / ystep) + 2;
	double n = nx * ny;
	return n >= 0 ? n : 1e300;
}

static int guard_begin_tile(fz_context *ctx, fz_device *dev, fz_rect area, fz_rect view, float xstep, float ystep, fz_matrix ctm, int id)
{
	bp_guard *g = bp_tls_guard;
	guard_check(ctx);
	if (g) {
		double n = bp_tile_cells(area, fz_expand_rect(g->raster, 1), xstep, ystep, ctm);
		if (n > (double)g->cells_left) {
			g->over = 1;
			g->cells_left = 0;
			fz_throw(ctx, FZ_ERROR_LIMIT, "a tiling pattern paints more cells than the render allows");
		}
		g->cells_left -= (int64_t)n;
	}
	return g->saved.begin_tile(ctx, dev, area, view, xstep, ystep, ctm, id);
}

static void guard_fill_path(fz_context *ctx, fz_device *dev, const fz_path *path, int even_odd, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params)
{
	guard_check(ctx);
	bp_tls_guard->saved.fill_path(ctx, dev, path, even_odd, ctm, cs, color, alpha, params);
}

static void guard_stroke_path(fz_context *ctx, fz_device *dev, const fz_path *path, const fz_stroke_state *stroke, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params)
{
	guard_check(ctx);
	bp_tls_guard->saved.stroke_path(ctx, dev, path, stroke, ctm, cs, color, alpha, params);
}

static void guard_clip_path(fz_context *ctx, fz_device *dev, const fz_path *path, int even_odd, fz_matrix ctm, fz_rect scissor)
{
	guard_check(ctx);
	bp_tls_guard->saved.clip_path(ctx, dev, path, even_odd, ctm, scissor);
}

static void guard_fill_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params)
{
	guard_check(ctx);
	bp_tls_guard->saved.fill_text(ctx, dev, text, ctm, cs, color, alpha, params);
}

static void guard_stroke_text(fz_context *ctx, fz_device *dev, const fz_text *text, const fz_stroke_state *stroke, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params)
{
	guard_check(ctx);
	bp_tls_guard->saved.stroke_text(ctx, dev, text, stroke, ctm, cs, color, alpha, params);
}

static void guard_fill_shade(fz_context *ctx, fz_device *dev, fz_shade *shd, fz_matrix ctm, float alpha, fz_color_params params)
{
	guard_check(ctx);
	bp_tls_guard->saved.fill_shade(ctx, dev, shd, ctm, alpha, params);
}

static void guard_fill_image(fz_context *ctx, fz_device *dev, fz_image *img, fz_matrix ctm, float alpha, fz_color_params params)
{
	guard_check(ctx);
	bp_tls_guard->saved.fill_image(ctx, dev, img, ctm, alpha, params);
}

static void guard_fill_image_mask(fz_context *ctx, fz_device *dev, fz_image *img, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params)
{
	guard_check(ctx);
	bp_tls_guard->saved.fill_image_mask(ctx, dev, img, ctm, cs, color, alpha, params);
}

// guard_device routes dev's drawing calls through g.
static void guard_device(fz_device *dev, bp_guard *g)
{
	g->saved = *dev;
	dev->begin_tile = guard_begin_tile;
	dev->fill_path = guard_fill_path;
	dev->stroke_path = guard_stroke_path;
	dev->clip_path = guard_clip_path;
	dev->fill_text = guard_fill_text;
	dev->stroke_text = guard_stroke_text;
	dev->fill_shade = guard_fill_shade;
	dev->fill_image = guard_fill_image;
	dev->fill_image_mask = guard_fill_image_mask;
}

int bp_render_list(fz_context *ctx, fz_display_list *list, float scale, int w, int h, unsigned char *dst, int64_t max_cells, fz_cookie *cookie, char *err, int errlen)
{
	fz_pixmap *pix = NULL;
	fz_device *dev = NULL;
	int rc = BP_OK;
	bp_guard g = {cookie, max_cells > 0 ? max_cells : INT64_MAX, 0, fz_make_rect(0, 0, w, h)};
	fz_var(pix);
	fz_var(dev);
	bp_tls_guard = &g;
	fz_try(ctx) {
		pix = bp_pixmap(ctx, w, h, dst);
		dev = fz_new_draw_device(ctx, fz_identity, pix);
		guard_device(dev, &g);
		fz_run_display_list(ctx, list, dev, fz_scale(scale, scale), fz_make_rect(0, 0, w, h), cookie);
		if (g.over)
			fz_throw(ctx, FZ_ERROR_LIMIT, "tiling patterns paint more than %lld cells", (long long)max_cells);
		fz_close_device(ctx, dev);
		if (cookie && cookie->abort)
			fz_throw(ctx, FZ_ERROR_ABORT, "render aborted");
	}
	fz_always(ctx) {
		fz_drop_device(ctx, dev);
		fz_drop_pixmap(ctx, pix);
		bp_tls_guard = NULL;
	}
	fz_catch(ctx) {
		rc = bp_caught(ctx, err, errlen);
		if (g.over)
			rc = BP_LIMIT;
		else if (cookie && cookie->abort)
			rc = BP_ABORTED;
	}
	return rc;
}

// bp_render_page_direct runs the page's content straight into the draw
// device, as go-fitz's ImageDPI does: the comparison of the stress test.
int bp_render_page_direct(bp_doc *d, int page, float scale, int w, int h, unsigned char *dst, char *err, int errlen)
{
	fz_context *ctx = d->ctx;
	fz_page *p = NULL;
	fz_pixmap *pix = NULL;
	fz_device *dev = NULL;
	int rc = BP_OK;
	fz_var(p);
	fz_var(pix);
	fz_var(dev);
	fz_try(ctx) {
		p = fz_load_page(ctx, d->doc, page);
		pix = bp_pixmap(ctx, w, h, dst);
		dev = fz_new_draw_device(ctx, fz_scale(scale, scale), pix);
		fz_run_page_contents(ctx, p, dev, fz_identity, NULL);
		fz_close_device(ctx, dev);
	}
	fz_always(ctx) {
		fz_drop_device(ctx, dev);
		fz_drop_pixmap(ctx, pix);
		fz_drop_page(ctx, p);
	}
	fz_catch(ctx)
		rc = bp_caught(ctx, err, errlen);
	return rc;
}

// ---- The walk device: what the page draws, as a word stream. ----

// A font seen by the walk: its glyphs' outline state (0 not sent, 1 sent
// with an outline, 2 sent without one).
typedef struct {
	fz_font *font;
	unsigned char *sent;
	int nsent;
	int64_t *t3ops; // Type 3 fonts: each glyph procedure's operations, -1 not yet counted
} bp_font;

// A tiling pattern being walked: its content is walked once, and the
// operations counted inside it are charged again for every other cell.
typedef struct {
	int64_t cells;
	uint64_t ops_before; // the walker's ignored operations when it began
} bp_tile;

enum { BP_TILES_MAX = 256 };

typedef struct {
	fz_device super;
	uintptr_t handle;
	uint32_t *buf;
	size_t len, cap;
	int ignore; // > 0 inside mask and tile content, which is not drawn where it is declared
	uint64_t skipped; // operations ignored since the last BP_SKIPPED record
	uint64_t ignored; // operations ignored or charged in all
	fz_rect bounds;   // the page, in the walk's space: a tile's cells are counted inside it
	bp_tile tiles[BP_TILES_MAX];
	int ntiles, tiles_over; // tiles_over: nested past BP_TILES_MAX, not counted
	bp_font *fonts;
	int nfonts, capfonts;
} bp_walker;

enum { BP_FLUSH_WORDS = 1 << 18 };

static void bp_flush(fz_context *ctx, bp_walker *w)
{
	if (w->len == 0)
		return;
	size_t n = w->len;
	w->len = 0;
	if (bpWalkFlush(w->handle, w->buf, n) != 0)
		fz_throw(ctx, FZ_ERROR_ABORT, "walk stopped by the caller");
}

// bp_reserve makes room for n more words, flushing what is there first.
static void bp_reserve(fz_context *ctx, bp_walker *w, size_t n)
{
	if (w->len + n <= w->cap)
		return;
	bp_flush(ctx, w);
	if (n > w->cap) {
		size_t cap = w->cap ? w->cap : BP_FLUSH_WORDS;
		while (cap < n)
			cap *= 2;
		w->buf = fz_realloc(ctx, w->buf, cap * sizeof(uint32_t));
		w->cap = cap;
	}
}

static void bp_word(bp_walker *w, uint32_t v) { w->buf[w->len++] = v; }

static void bp_header(fz_context *ctx, bp_walker *w, uint32_t kind, size_t words);

// bp_skipped_every is how many ignored operations one BP_SKIPPED record
// reports: the Go side counts them against the page's limits.
enum { bp_skipped_every = 4096 };

static void bp_send_skipped(fz_context *ctx, bp_walker *w)
{
	while (w->skipped > 0) {
		uint32_t n = w->skipped > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)w->skipped;
		w->skipped -= n;
		bp_header(ctx, w, BP_SKIPPED, 1);
		bp_word(w, n);
	}
}

// bp_charge counts n operations drawn where nothing is kept (the cells of
// a pattern past its first, a shading, a Type 3 glyph's procedure)
// against the page's limits. Past 2^40 in one charge (far past any
// limit) the count stays there.
static void bp_charge(fz_context *ctx, bp_walker *w, uint64_t n)
{
	if (n > (uint64_t)1 << 40)
		n = (uint64_t)1 << 40;
	w->ignored += n;
	w->skipped += n;
	if (w->skipped >= bp_skipped_every)
		bp_send_skipped(ctx, w);
}

// bp_ignored reports whether w ignores what is drawn now (mask and tile
// content), counting the operation when it does.
static int bp_ignored(fz_context *ctx, bp_walker *w)
{
	if (!w->ignore)
		return 0;
	w->ignored++;
	if (++w->skipped >= bp_skipped_every)
		bp_send_skipped(ctx, w);
	return 1;
}

static void bp_float(bp_walker *w, float f)
{
	uint32_t v;
	memcpy(&v, &f, sizeof v);
	w->buf[w->len++] = v;
}

static void bp_matrix(bp_walker *w, fz_matrix m)
{
	bp_float(w, m.a);
	bp_float(w, m.b);
	bp_float(w, m.c);
	bp_float(w, m.d);
	bp_float(w, m.e);
	bp_float(w, m.f);
}

// Path size in words, counted by a first walk.
static void cnt_move(fz_context *ctx, void *arg, float x, float y) { *(size_t *)arg += 3; }
static void cnt_line(fz_context *ctx, void *arg, float x, float y) { *(size_t *)arg += 3; }
static void cnt_curve(fz_context *ctx, void *arg, float a, float b, float c, float d, float e, float f) { *(size_t *)arg += 7; }
static void cnt_close(fz_context *ctx, void *arg) { *(size_t *)arg += 1; }
static const fz_path_walker bp_counter = {cnt_move, cnt_line, cnt_curve, cnt_close};

static void put_move(fz_context *ctx, void *arg, float x, float y)
{
	bp_walker *w = arg;
	bp_word(w, BP_M);
	bp_float(w, x);
	bp_float(w, y);
}
static void put_line(fz_context *ctx, void *arg, float x, float y)
{
	bp_walker *w = arg;
	bp_word(w, BP_L);
	bp_float(w, x);
	bp_float(w, y);
}
static void put_curve(fz_context *ctx, void *arg, float x1, float y1, float x2, float y2, float x3, float y3)
{
	bp_walker *w = arg;
	bp_word(w, BP_C);
	bp_float(w, x1);
	bp_float(w, y1);
	bp_float(w, x2);
	bp_float(w, y2);
	bp_float(w, x3);
	bp_float(w, y3);
}
static void put_close(fz_context *ctx, void *arg) { bp_word((bp_walker *)arg, BP_Z); }
// Only the compulsory callbacks: fz_walk_path writes rectangles and
// quadratic curves as lines and cubics, as MuPDF's SVG device received them.
static const fz_path_walker bp_putter = {put_move, put_line, put_curve, put_close};

// bp_path_words is the number of words a path takes in the stream.
static size_t bp_path_words(fz_context *ctx, const fz_path *path)
{
	size_t n = 0;
	if (path)
		fz_walk_path(ctx, path, &bp_counter, &n);
	return n;
}

static void bp_header(fz_context *ctx, bp_walker *w, uint32_t kind, size_t words)
{
	bp_reserve(ctx, w, words + 2);
	bp_word(w, kind);
	bp_word(w, (uint32_t)words);
}

// bp_rgb is the colour as MuPDF's SVG device wrote it: converted to RGB,
// each channel rounded to 0..255; BP_NONE without a colour space.
static uint32_t bp_rgb(fz_context *ctx, fz_colorspace *cs, const float *color, fz_color_params params)
{
	float rgb[3];
	if (!cs)
		return BP_NONE;
	if (cs != fz_device_rgb(ctx)) {
		fz_convert_color(ctx, cs, color, fz_device_rgb(ctx), rgb, NULL, params);
		color = rgb;
	}
	uint32_t r = fz_clampi(255 * color[0] + 0.5f, 0, 255);
	uint32_t g = fz_clampi(255 * color[1] + 0.5f, 0, 255);
	uint32_t b = fz_clampi(255 * color[2] + 0.5f, 0, 255);
	return (r << 16) | (g << 8) | b;
}

static void bp_fill_path(fz_context *ctx, fz_device *dev, const fz_path *path, int even_odd, fz_matrix ctm,
	fz_colorspace *cs, const float *color, float alpha, fz_color_params params)
{
	bp_walker *w = (bp_walker *)dev;
	if (bp_ignored(ctx, w))
		return;
	size_t n = bp_path_words(ctx, path);
	uint32_t rgb = bp_rgb(ctx, cs, color, params);
	bp_header(ctx, w, BP_FILL, 7 + n);
	bp_matrix(w, ctm);
	bp_word(w, rgb);
	fz_walk_path(ctx, path, &bp_putter, w);
}

static void bp_stroke_path(fz_context *ctx, fz_device *dev, const fz_path *path, const fz_stroke_state *stroke,
	fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params)
{
	bp_walker *w = (bp_walker *)dev;
	if (bp_ignored(ctx, w))
		return;
	size_t n = bp_path_words(ctx, path);
	uint32_t rgb = bp_rgb(ctx, cs, color, params);
	bp_header(ctx, w, BP_STROKE, 8 + n);
	bp_matrix(w, ctm);
	bp_word(w, rgb);
	bp_float(w, stroke->linewidth);
	fz_walk_path(ctx, path, &bp_putter, w);
}

static void bp_clip_path(fz_context *ctx, fz_device *dev, const fz_path *path, int even_odd, fz_matrix ctm, fz_rect scissor)
{
	bp_walker *w = (bp_walker *)dev;
	if (bp_ignored(ctx, w))
		return;
	size_t n = bp_path_words(ctx, path);
	bp_header(ctx, w, BP_CLIP, 6 + n);
	bp_matrix(w, ctm);
	fz_walk_path(ctx, path, &bp_putter, w);
}

static void bp_clip_other(fz_context *ctx, bp_walker *w)
{
	if (bp_ignored(ctx, w))
		return;
	bp_header(ctx, w, BP_CLIP_OTHER, 0);
}

static void bp_clip_stroke_path(fz_context *ctx, fz_device *dev, const fz_path *path, const fz_stroke_state *stroke, fz_matrix ctm, fz_rect scissor)
{
	bp_clip_other(ctx, (bp_walker *)dev);
}

static void bp_clip_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm, fz_rect scissor)
{
	bp_clip_other(ctx, (bp_walker *)dev);
}

static void bp_clip_stroke_text(fz_context *ctx, fz_device *dev, const fz_text *text, const fz_stroke_state *stroke, fz_matrix ctm, fz_rect scissor)
{
	bp_clip_other(ctx, (bp_walker *)dev);
}

static void bp_clip_image_mask(fz_context *ctx, fz_device *dev, fz_image *img, fz_matrix ctm, fz_rect scissor)
{
	bp_clip_other(ctx, (bp_walker *)dev);
}

static void bp_pop_clip(fz_context *ctx, fz_device *dev)
{
	bp_walker *w = (bp_walker *)dev;
	if (bp_ignored(ctx, w))
		return;
	bp_header(ctx, w, BP_POP, 0);
}

// bp_image sends the box an image covers: a page that is mostly image is
// a scan, which the raster detector reads.
static void bp_image(fz_context *ctx, bp_walker *w, fz_matrix ctm)
{
	if (bp_ignored(ctx, w))
		return;
	fz_rect r = fz_transform_rect(fz_unit_rect, ctm);
	bp_header(ctx, w, BP_IMAGE, 4);
	bp_float(w, r.x0);
	bp_float(w, r.y0);
	bp_float(w, r.x1);
	bp_float(w, r.y1);
}

static void bp_fill_image(fz_context *ctx, fz_device *dev, fz_image *img, fz_matrix ctm, float alpha, fz_color_params params)
{
	bp_image(ctx, (bp_walker *)dev, ctm);
}

static void bp_fill_image_mask(fz_context *ctx, fz_device *dev, fz_image *img, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params)
{
	bp_image(ctx, (bp_walker *)dev, ctm);
}

static void bp_begin_mask(fz_context *ctx, fz_device *dev, fz_rect area, int luminosity, fz_colorspace *cs, const float *bc, fz_color_params params)
{
	((bp_walker *)dev)->ignore++;
}

// The mask's content was not drawn; the mask clips what follows until its
// pop_clip.
static void bp_end_mask(fz_context *ctx, fz_device *dev, fz_function *fn)
{
	bp_walker *w = (bp_walker *)dev;
	if (w->ignore > 0)
		w->ignore--;
	bp_clip_other(ctx, w);
}

// A tiling pattern's content is walked once (ignored: it is not drawn
// where it is declared); at its end, the operations counted inside it,
// at least one, are charged once more for every other cell of the page
// it paints (bp_tile_cells, within the page), as the start check counts
// them (cost.c).
static int bp_begin_tile(fz_context *ctx, fz_device *dev, fz_rect area, fz_rect view, float xstep, float ystep, fz_matrix ctm, int id)
{
	bp_walker *w = (bp_walker *)dev;
	w->ignore++;
	if (w->ntiles == BP_TILES_MAX) {
		w->tiles_over++;
		return 0;
	}
	double n = bp_tile_cells(area, w->bounds, xstep, ystep, ctm);
	w->tiles[w->ntiles].cells = n >= 9.2e18 ? INT64_MAX : (int64_t)n;
	w->tiles[w->ntiles].ops_before = w->ignored;
	w->ntiles++;
	return 0;
}

static void bp_end_tile(fz_context *ctx, fz_device *dev)
{
	bp_walker *w = (bp_walker *)dev;
	if (w->ignore > 0)
		w->ignore--;
	if (w->tiles_over > 0) {
		w->tiles_over--;
		return;
	}
	if (w->ntiles == 0)
		return;
	bp_tile *t = &w->tiles[--w->ntiles];
	uint64_t inside = w->ignored - t->ops_before;
	if (inside == 0)
		inside = 1;
	if (t->cells > 1) {
		uint64_t more = (uint64_t)(t->cells - 1);
		bp_charge(ctx, w, more > UINT64_MAX / inside ? UINT64_MAX : more * inside);
	}
}

static void bp_fill_shade(fz_context *ctx, fz_device *dev, fz_shade *shd, fz_matrix ctm, float alpha, fz_color_params params)
{
	bp_charge(ctx, (bp_walker *)dev, 1);
}

// A device that counts the drawing calls of a Type 3 glyph's procedure.
typedef struct {
	fz_device super;
	int64_t n;
} bp_counter_dev;

static void cnt_fill_path(fz_context *ctx, fz_device *dev, const fz_path *path, int even_odd, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params) { ((bp_counter_dev *)dev)->n++; }
static void cnt_stroke_path(fz_context *ctx, fz_device *dev, const fz_path *path, const fz_stroke_state *stroke, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params) { ((bp_counter_dev *)dev)->n++; }
static void cnt_clip_path(fz_context *ctx, fz_device *dev, const fz_path *path, int even_odd, fz_matrix ctm, fz_rect scissor) { ((bp_counter_dev *)dev)->n++; }
static void cnt_fill_image(fz_context *ctx, fz_device *dev, fz_image *img, fz_matrix ctm, float alpha, fz_color_params params) { ((bp_counter_dev *)dev)->n++; }
static void cnt_fill_image_mask(fz_context *ctx, fz_device *dev, fz_image *img, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params) { ((bp_counter_dev *)dev)->n++; }
static void cnt_fill_shade(fz_context *ctx, fz_device *dev, fz_shade *shd, fz_matrix ctm, float alpha, fz_color_params params) { ((bp_counter_dev *)dev)->n++; }
static void cnt_text(bp_counter_dev *d, const fz_text *text)
{
	for (fz_text_span *span = text->head; span; span = span->next)
		d->n += span->len;
}
static void cnt_fill_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params) { cnt_text((bp_counter_dev *)dev, text); }
static void cnt_stroke_text(fz_context *ctx, fz_device *dev, const fz_text *text, const fz_stroke_state *stroke, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params params) { cnt_text((bp_counter_dev *)dev, text); }

// bp_t3_ops is the drawing calls of glyph gid of Type 3 font fi, counted
// once a walk by running its display list, at least one.
static int64_t bp_t3_ops(fz_context *ctx, bp_walker *w, int fi, int gid)
{
	bp_font *f = &w->fonts[fi];
	fz_font *font = f->font;
	if (!font->t3lists || gid < 0 || gid >= 256)
		return 1;
	if (!f->t3ops) {
		f->t3ops = fz_malloc(ctx, 256 * sizeof(int64_t));
		for (int i = 0; i < 256; i++)
			f->t3ops[i] = -1;
	}
	if (f->t3ops[gid] >= 0)
		return f->t3ops[gid];
	int64_t n = 1;
	if (font->t3lists[gid]) {
		bp_counter_dev *d = fz_new_derived_device(ctx, bp_counter_dev);
		d->super.fill_path = cnt_fill_path;
		d->super.stroke_path = cnt_stroke_path;
		d->super.clip_path = cnt_clip_path;
		d->super.fill_text = cnt_fill_text;
		d->super.stroke_text = cnt_stroke_text;
		d->super.fill_image = cnt_fill_image;
		d->super.fill_image_mask = cnt_fill_image_mask;
		d->super.fill_shade = cnt_fill_shade;
		fz_try(ctx) {
			fz_run_display_list(ctx, font->t3lists[gid], &d->super, fz_identity, fz_infinite_rect, NULL);
			fz_close_device(ctx, &d->super);
			if (d->n > n)
				n = d->n;
		}
		fz_always(ctx)
			fz_drop_device(ctx, &d->super);
		fz_catch(ctx)
			fz_rethrow(ctx);
	}
	w->fonts[fi].t3ops[gid] = n;
	return n;
}

static void bp_begin_layer(fz_context *ctx, fz_device *dev, const char *name)
{
	bp_walker *w = (bp_walker *)dev;
	size_t len = name ? strlen(name) : 0;
	size_t words = (len + 3) / 4;
	bp_header(ctx, w, BP_LAYER_BEGIN, 1 + words);
	bp_word(w, (uint32_t)len);
	memset(w->buf + w->len, 0, words * sizeof(uint32_t));
	if (len)
		memcpy(w->buf + w->len, name, len);
	w->len += words;
}

static void bp_end_layer(fz_context *ctx, fz_device *dev)
{
	bp_header(ctx, (bp_walker *)dev, BP_LAYER_END, 0);
}

// bp_font_index returns the walk's index of font, adding it.
static int bp_font_index(fz_context *ctx, bp_walker *w, fz_font *font)
{
	for (int i = 0; i < w->nfonts; i++)
		if (w->fonts[i].font == font)
			return i;
	if (w->nfonts == w->capfonts) {
		int cap = w->capfonts ? 2 * w->capfonts : 8;
		w->fonts = fz_realloc(ctx, w->fonts, cap * sizeof(bp_font));
		w->capfonts = cap;
	}
	w->fonts[w->nfonts].font = fz_keep_font(ctx, font);
	w->fonts[w->nfonts].sent = NULL;
	w->fonts[w->nfonts].nsent = 0;
	w->fonts[w->nfonts].t3ops = NULL;
	return w->nfonts++;
}

// bp_outline sends the outline of a glyph the first time it is drawn, in
// font units, as MuPDF's SVG device defined it: from FreeType for fonts
// that have a face, none for Type 3 glyphs and glyphs without an outline.
// It returns whether the glyph has an outline record.
static int bp_outline(fz_context *ctx, bp_walker *w, int fi, int gid)
{
	bp_font *f = &w->fonts[fi];
	if (gid >= f->nsent) {
		int n = gid + 1 > 2 * f->nsent ? gid + 1 : 2 * f->nsent;
		f->sent = fz_realloc(ctx, f->sent, n);
		memset(f->sent + f->nsent, 0, n - f->nsent);
		f->nsent = n;
	}
	if (f->sent[gid])
		return f->sent[gid] == 1;
	fz_path *path = NULL;
	if (fz_font_ft_face(ctx, f->font))
		path = fz_outline_glyph(ctx, f->font, gid, fz_identity);
	fz_try(ctx) {
		size_t n = bp_path_words(ctx, path);
		bp_header(ctx, w, BP_OUTLINE, 3 + n);
		bp_word(w, (uint32_t)fi);
		bp_word(w, (uint32_t)gid);
		bp_word(w, path != NULL);
		if (path)
			fz_walk_path(ctx, path, &bp_putter, w);
	}
	fz_always(ctx)
		fz_drop_path(ctx, path);
	fz_catch(ctx)
		fz_rethrow(ctx);
	f = &w->fonts[fi];
	f->sent[gid] = path ? 1 : 2;
	return path != NULL;
}

static int font_is_t3(fz_font *font) { return font->t3procs != NULL; }

// bp_text sends each glyph of text with the matrix MuPDF's SVG device gave
// its <use>: the span's matrix moved to the glyph's origin, then ctm.
static void bp_text(fz_context *ctx, bp_walker *w, const fz_text *text, fz_matrix ctm,
	uint32_t fill, uint32_t stroke, const fz_stroke_state *ss)
{
	if (w->ignore)
		return;
	for (fz_text_span *span = text->head; span; span = span->next) {
		int fi = bp_font_index(ctx, w, span->font);
		fz_matrix trm = span->trm;
		for (int i = 0; i < span->len; i++) {
			fz_text_item *it = &span->items[i];
			if (it->gid < 0)
				continue;
			int has = bp_outline(ctx, w, fi, it->gid);
			trm.e = it->x;
			trm.f = it->y;
			fz_matrix mtx = fz_concat(trm, ctm);
			float width = 0;
			if (ss) {
				float exp = fz_matrix_expansion(mtx);
				width = ss->linewidth / (exp == 0 ? 1 : exp);
			}
			if (!has) {
				if (font_is_t3(span->font))
					bp_charge(ctx, w, bp_t3_ops(ctx, w, fi, it->gid));
				continue;
			}
			bp_header(ctx, w, BP_GLYPH, 12);
			bp_word(w, (uint32_t)fi);
			bp_word(w, (uint32_t)it->gid);
			bp_word(w, (uint32_t)it->ucs);
			bp_matrix(w, mtx);
			bp_word(w, fill);
			bp_word(w, stroke);
			bp_float(w, width);
		}
	}
}

static void bp_fill_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm,
	fz_colorspace *cs, const float *color, float alpha, fz_color_params params)
{
	bp_walker *w = (bp_walker *)dev;
	if (bp_ignored(ctx, w))
		return;
	bp_text(ctx, w, text, ctm, bp_rgb(ctx, cs, color, params), BP_NONE, NULL);
}

static void bp_stroke_text(fz_context *ctx, fz_device *dev, const fz_text *text, const fz_stroke_state *stroke, fz_matrix ctm,
	fz_colorspace *cs, const float *color, float alpha, fz_color_params params)
{
	bp_walker *w = (bp_walker *)dev;
	if (bp_ignored(ctx, w))
		return;
	bp_text(ctx, w, text, ctm, BP_NONE, bp_rgb(ctx, cs, color, params), stroke);
}

static void bp_drop_walker(fz_context *ctx, fz_device *dev)
{
	bp_walker *w = (bp_walker *)dev;
	for (int i = 0; i < w->nfonts; i++) {
		fz_drop_font(ctx, w->fonts[i].font);
		fz_free(ctx, w->fonts[i].sent);
		fz_free(ctx, w->fonts[i].t3ops);
	}
	fz_free(ctx, w->fonts);
	fz_free(ctx, w->buf);
}

static void bp_close_walker(fz_context *ctx, fz_device *dev)
{
	bp_send_skipped(ctx, (bp_walker *)dev);
	bp_flush(ctx, (bp_walker *)dev);
}

// bp_new_walker returns the walk device writing to the Go handle.
static bp_walker *bp_new_walker(fz_context *ctx, uintptr_t handle, fz_rect bounds)
{
	bp_walker *w = fz_new_derived_device(ctx, bp_walker);
	w->super.close_device = bp_close_walker;
	w->super.drop_device = bp_drop_walker;
	w->super.fill_path = bp_fill_path;
	w->super.stroke_path = bp_stroke_path;
	w->super.clip_path = bp_clip_path;
	w->super.clip_stroke_path = bp_clip_stroke_path;
	w->super.fill_text = bp_fill_text;
	w->super.stroke_text = bp_stroke_text;
	w->super.clip_text = bp_clip_text;
	w->super.clip_stroke_text = bp_clip_stroke_text;
	w->super.clip_image_mask = bp_clip_image_mask;
	w->super.fill_image = bp_fill_image;
	w->super.fill_image_mask = bp_fill_image_mask;
	w->super.pop_clip = bp_pop_clip;
	w->super.begin_mask = bp_begin_mask;
	w->super.end_mask = bp_end_mask;
	w->super.begin_tile = bp_begin_tile;
	w->super.fill_shade = bp_fill_shade;
	w->super.end_tile = bp_end_tile;
	w->super.begin_layer = bp_begin_layer;
	w->super.end_layer = bp_end_layer;
	w->handle = handle;
	w->bounds = bounds;
	w->cap = BP_FLUSH_WORDS;
	w->buf = fz_malloc(ctx, w->cap * sizeof(uint32_t));
	return w;
}

// bp_walk_page runs page's content straight into the walk device, with
// no display list (the document pass reads pages it does not render).
int bp_walk_page(bp_doc *d, int page, uintptr_t handle, float rect[4], fz_cookie *cookie, char *err, int errlen)
{
	fz_context *ctx = d->ctx;
	fz_page *p = NULL;
	bp_walker *w = NULL;
	int rc = BP_OK;
	fz_var(p);
	fz_var(w);
	fz_try(ctx) {
		p = fz_load_page(ctx, d->doc, page);
		fz_rect bounds = fz_bound_page(ctx, p);
		bp_rect_out(bounds, rect);
		w = bp_new_walker(ctx, handle, bounds);
		fz_run_page_contents(ctx, p, &w->super, fz_identity, cookie);
		fz_close_device(ctx, &w->super);
		if (cookie && cookie->abort)
			fz_throw(ctx, FZ_ERROR_ABORT, "walk aborted");
	}
	fz_always(ctx) {
		fz_drop_device(ctx, (fz_device *)w);
		fz_drop_page(ctx, p);
	}
	fz_catch(ctx)
		rc = bp_caught(ctx, err, errlen);
	return rc;
}

int bp_walk_list(fz_context *ctx, fz_display_list *list, uintptr_t handle, fz_cookie *cookie, char *err, int errlen)
{
	bp_walker *w = NULL;
	int rc = BP_OK;
	fz_var(w);
	fz_try(ctx) {
		w = bp_new_walker(ctx, handle, fz_bound_display_list(ctx, list));
		fz_run_display_list(ctx, list, &w->super, fz_identity, fz_infinite_rect, cookie);
		fz_close_device(ctx, &w->super);
		if (cookie && cookie->abort)
			fz_throw(ctx, FZ_ERROR_ABORT, "walk aborted");
	}
	fz_always(ctx)
		fz_drop_device(ctx, (fz_device *)w);
	fz_catch(ctx)
		rc = bp_caught(ctx, err, errlen);
	return rc;
}
