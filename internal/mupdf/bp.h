// C side of package mupdf: a MuPDF context of our own, PDF pages through
// display lists, rendering into caller memory, and a device that writes
// what a page draws as a word stream for Go (bp.c). Every function catches
// MuPDF's exceptions and reports them as a return code and a message.
#ifndef BP_H
#define BP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__has_include)
#if !__has_include(<mupdf/fitz.h>)
#error "MuPDF headers missing: run `make mupdf-headers` (copies go-fitz's MuPDF headers into internal/mupdf/include)"
#endif
#endif

#include <mupdf/fitz.h>

// Return codes.
enum {
	BP_OK = 0,
	BP_ERROR = 1,
	BP_NEEDS_PASSWORD = 2,
	BP_ABORTED = 3,
	BP_LIMIT = 4, // the render's allowance of tile cells was spent
};

// Record kinds of the walk stream. Every record is a header word (kind),
// a length word (number of words that follow), then its words.
enum {
	BP_FILL = 1,        // ctm[6], rgb|BP_NONE, path
	BP_STROKE = 2,      // ctm[6], rgb|BP_NONE, linewidth, path
	BP_CLIP = 3,        // ctm[6], path
	BP_CLIP_OTHER = 4,  // a clip that is not a fill path (mask, text, stroke, image)
	BP_POP = 5,
	BP_OUTLINE = 6,     // font, gid, has (0: no outline), path (font units)
	BP_GLYPH = 7,       // font, gid, ucs, mtx[6], fill rgb|BP_NONE, stroke rgb|BP_NONE, stroke width
	BP_LAYER_BEGIN = 8, // byte length, name bytes padded to words
	BP_LAYER_END = 9,
	BP_SKIPPED = 10,    // count: operations drawn inside mask and tile content, which is not kept
	BP_IMAGE = 11,      // bbox[4]: an image or image mask drawn, its box in page space
};

// Path operators inside records: op word, then 2 (M, L), 6 (C) or 0 (Z) floats.
enum { BP_M = 'M', BP_L = 'L', BP_C = 'C', BP_Z = 'Z' };

#define BP_NONE 0xFFFFFFFFu

typedef struct bp_doc {
	fz_context *ctx; // the document's context; cloned for renders and walks
	fz_document *doc;
	pthread_mutex_t mu[FZ_LOCK_MAX];
	fz_locks_context locks;
} bp_doc;

// bp_caught turns the exception caught in ctx into a return code and
// message (BP_ABORTED for an abort).
int bp_caught(fz_context *ctx, char *err, int errlen);

// What the pages of a document run, counting every use (cost.c).
typedef struct {
	int64_t max_bytes; // decoded content bytes of all pages
	int64_t max_uses;  // form XObject invocations on one page
	int max_depth;     // forms and patterns nested in forms and patterns
	int64_t max_ops;   // drawing operations of one page, every repetition counted
} bp_cost_limits;

typedef struct {
	int64_t bytes;  // decoded content bytes of all pages, every use counted
	int64_t uses;   // most form invocations of one page
	int depth;      // deepest form nesting
	int worst_page; // the page with the most uses, or where a limit was passed
	int stopped;    // a limit was passed: the counts are lower bounds
	int64_t ops;    // most drawing operations of one page
	int ops_page;   // the page with the most operations, or where a limit was passed
} bp_cost;

int bp_document_cost(bp_doc *d, bp_cost_limits lim, fz_cookie *cookie, bp_cost *out, char *err, int errlen);
int bp_is_encrypted(bp_doc *d);
int bp_stream_bytes(bp_doc *d, int64_t limit, int64_t *out, char *err, int errlen);

int bp_open(const unsigned char *data, size_t len, size_t store, bp_doc **out, char *err, int errlen);
void bp_close(bp_doc *d);
int bp_count_pages(bp_doc *d, int *n, char *err, int errlen);
int bp_page_bounds(bp_doc *d, int page, float rect[4], char *err, int errlen);
int bp_load_list(bp_doc *d, int page, fz_display_list **list, float rect[4], fz_cookie *cookie, char *err, int errlen);
void bp_drop_list(bp_doc *d, fz_display_list *list);

fz_cookie *bp_new_cookie(void);
void bp_abort(fz_cookie *c);
void bp_free_cookie(fz_cookie *c);

// Renders and walks run on a clone of the document's context (bp_clone,
// taken while no other call uses the document), one clone per goroutine.
fz_context *bp_clone(bp_doc *d);
void bp_drop_clone(fz_context *ctx);

int bp_render_list(fz_context *ctx, fz_display_list *list, float scale, int w, int h, unsigned char *dst, int64_t max_cells, fz_cookie *cookie, char *err, int errlen);
double bp_tile_cells(fz_rect area, fz_rect box, float xstep, float ystep, fz_matrix ctm);
int bp_render_page_direct(bp_doc *d, int page, float scale, int w, int h, unsigned char *dst, char *err, int errlen);
int bp_walk_page(bp_doc *d, int page, uintptr_t handle, float rect[4], fz_cookie *cookie, char *err, int errlen);
int bp_walk_list(fz_context *ctx, fz_display_list *list, uintptr_t handle, fz_cookie *cookie, char *err, int errlen);

#endif
