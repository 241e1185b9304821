/*
 * Copyright (c) 2026 the FFmpeg DNN CUDA fork developers
 *
 * This file is part of FFmpeg.
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * FFmpeg is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with FFmpeg; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
 */

/**
 * @file
 * Frame interpolation with a deep-learning model (LibTorch backend): the
 * model makes the frame at time t between two frames, for a frame rate
 * factor times the input's or any rate, on frames in system memory or in
 * CUDA memory (zero-copy, on the frames' stream).
 */

#include "libavutil/avstring.h"
#include "libavutil/dict.h"
#include "libavutil/opt.h"
#include "libavutil/parseutils.h"
#include "libavutil/pixdesc.h"
#include "libavutil/timestamp.h"
#include "filters.h"
#include "dnn_filter_common.h"
#include "video.h"

/** Where the backend puts a pair's scene score (scene > 0), on each frame of it */
#define SCENE_SCORE_KEY "lavfi.dnn_interpolate.scene_score"
/** What scdet puts on the first frame of a scene */
#define SCDET_CUT_KEY "lavfi.scd.time"

/** An output time of the pair in hand, waiting for the batch's run. */
typedef struct PendingTime {
    int64_t pts, duration;      ///< output time base
    float t;
} PendingTime;

typedef struct DnnInterpolateContext {
    const AVClass *class;
    DnnContext dnnctx;
    int factor;
    char *fps_str;              ///< the option: a rate or its name (ntsc, film...)
    AVRational fps;             ///< 0/1 (fps unset): factor times the input's rate
    float scene;                ///< 0: no scene-cut detection
    int scdet;                  ///< scene cuts from scdet's metadata
    int cut_pending;            ///< scdet marked a frame that was dropped: the next one starts the scene

    AVFrame *prev;              ///< the earlier frame of the next pair
    int64_t prev_id;            ///< its id for the backend
    int64_t next_id;
    int64_t next_out;           ///< fps: the index of the next output time
    int started;                ///< fps: next_out was set from the first frame
    /**
     * fps: ts in the input time base is ts * rs_num / rs_den in the
     * output's (the exact 64-bit terms of in_tb / out_tb)
     */
    int64_t rs_num, rs_den;
    int64_t first;              ///< fps: the first output index at or after the pair's start
    int first_exact;            ///< fps: output first is at the start itself
    int64_t lim;                ///< fps: the pair's outputs are those below this index
    /**
     * fps: the pair's last output, before the later frame's time but not
     * before the time the fps filter rounds it to: sent only if the later
     * frame is not the last, or the end is after it (AV_NOPTS_VALUE: none)
     */
    int64_t held;
    int decided;                ///< held: 0 not yet known, 1 sent, -1 not
    int status;                 ///< a status taken while held waited, for the pair's end
    int64_t status_pts;
    int64_t out_end;            ///< where the last output frame ends (output time base)
    int64_t nb_sent;            ///< output frames sent

    /**
     * The pair in hand, [prev->pts, prev->pts + span) in the input time
     * base, its outputs made a run of the model (or a repeated frame) an
     * activation: a long interval does not fill the output's queue at once.
     */
    int64_t span;               ///< 0: no pair in hand
    AVFrame *later;             ///< the later frame (NULL at the end), the next pair's earlier
    int64_t later_id;
    int repeat;                 ///< the earlier frame repeated (a scene cut, a jump back, the end)
    int scored;                 ///< scene: the pair's score is known (its first run), in score
    char score[32];             ///< the backend's SCENE_SCORE_KEY of the pair
    int restart;                ///< a jump back: fps places its outputs from the later frame anew
    int k;                      ///< factor: the next output of the pair
    int64_t last_span;          ///< the last pair's, for an earlier frame without a duration
    int eof;                    ///< the input ended: the last frame's pair, then the status
    int64_t eof_pts;
    PendingTime pending[DNN_TIMES_MAX]; ///< batch > 1: times of the pair for one run
    int nb_pending;
    int model_failed;           ///< a run failed: its task is never finished, no run may follow
    int64_t nb_same_pts;        ///< frames dropped for the timestamp of the frame before
    int scdet_seen;             ///< scdet: a frame carried scdet's metadata (it sets a score on each)
    int first_of_pair;          ///< no frame of the pair in hand sent yet: the next keeps scdet's metadata
} DnnInterpolateContext;

#define OFFSET(x) offsetof(DnnInterpolateContext, dnnctx.x)
#define OFFSET2(x) offsetof(DnnInterpolateContext, x)
#define FLAGS AV_OPT_FLAG_FILTERING_PARAM | AV_OPT_FLAG_VIDEO_PARAM
static const AVOption dnn_interpolate_options[] = {
    { "factor", "output frame rate as a multiple of the input's",      OFFSET2(factor), AV_OPT_TYPE_INT,        { .i64 = 2 },   2, 1024, FLAGS },
    { "fps",    "output frame rate, any (a number, a fraction or a name such as ntsc); unset or 0: factor times the input's",
                                                                        OFFSET2(fps_str), AV_OPT_TYPE_STRING,   { .str = NULL }, 0, 0,    FLAGS },
    { "scene",  "scene-cut threshold: mean absolute difference of the two frames (0 to 1) above which the earlier frame is repeated; 0: off",
                                                                        OFFSET2(scene),  AV_OPT_TYPE_FLOAT,      { .dbl = 0 },   0, 1, FLAGS },
    { "scdet",  "take scene cuts from the scdet filter before this one (lavfi.scd.time): the earlier frame is repeated",
                                                                        OFFSET2(scdet),  AV_OPT_TYPE_BOOL,       { .i64 = 0 },   0, 1, FLAGS },
    { "t_plane", "give the model t as a 1x1xHxW plane, not a 0-D tensor", OFFSET(t_plane), AV_OPT_TYPE_BOOL,       { .i64 = 0 },   0, 1, FLAGS },
    { "batch",  "output times of one pair the model makes in one run (> 1: the pair and t as a batch, t of shape [N, 1, 1, 1])",
                                                                        OFFSET(batch),   AV_OPT_TYPE_INT,        { .i64 = 1 },   1, DNN_TIMES_MAX, FLAGS },
    { NULL }
};

AVFILTER_DNN_DEFINE_CLASS(dnn_interpolate, DNN_TH);

static av_cold int init(AVFilterContext *context)
{
    DnnInterpolateContext *ctx = context->priv;

    // parsed as the fps and framerate filters do theirs: names included
    // ("0" is unset, as when the option was a rational)
    if (ctx->fps_str && strcmp(ctx->fps_str, "0") &&
        av_parse_video_rate(&ctx->fps, ctx->fps_str) < 0) {
        av_log(context, AV_LOG_ERROR, "Invalid fps '%s': a rate above 0, such as 60, "
               "60000/1001 or ntsc\n", ctx->fps_str);
        return AVERROR(EINVAL);
    }
    if (ctx->scdet && ctx->scene > 0) {
        av_log(context, AV_LOG_ERROR, "scene and scdet are two ways of finding scene cuts: "
               "set one of them\n");
        return AVERROR(EINVAL);
    }
    ctx->dnnctx.backend_type = DNN_TH;
    // a frame made between two: its chroma is the model's too
    ctx->dnnctx.yuv_input = DNN_COLOR_YUV_RGB;
    ctx->dnnctx.frames_layout = DNN_FRAMES_PAIR;
    ctx->dnnctx.nb_frames = 2;
    ctx->dnnctx.sigma = -1; // forward(earlier, later, t) and nothing after
    return ff_dnn_init(&ctx->dnnctx, DFT_PROCESS_FRAMES, context);
}

static const enum AVPixelFormat pix_fmts[] = {
    AV_PIX_FMT_RGB24, AV_PIX_FMT_BGR24,
    AV_PIX_FMT_GRAY8, AV_PIX_FMT_GRAYF32,
    AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P,
    AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUV410P, AV_PIX_FMT_YUV411P,
    AV_PIX_FMT_NV12,
#if CONFIG_DNN_CUDA
    AV_PIX_FMT_CUDA, // the layouts ff_dnn_cuda_supported() takes
#endif
    AV_PIX_FMT_NONE
};

static int config_input(AVFilterLink *inlink)
{
    AVFilterContext *context = inlink->dst;
    DnnInterpolateContext *ctx = context->priv;

    if (inlink->format == AV_PIX_FMT_CUDA)
        return ff_dnn_cuda_check_input(context, inlink, ctx->dnnctx.backend_type);
    return 0;
}

static int config_output(AVFilterLink *outlink)
{
    AVFilterContext *context = outlink->src;
    DnnInterpolateContext *ctx = context->priv;
    AVFilterLink *inlink = context->inputs[0];
    FilterLink *il = ff_filter_link(inlink);
    FilterLink *ol = ff_filter_link(outlink);
    int w, h, ret;

    ret = ff_dnn_get_output(&ctx->dnnctx, inlink->w, inlink->h, &w, &h);
    if (ret != 0) {
        av_log(ctx, AV_LOG_ERROR, "could not get output from the model\n");
        return ret;
    }
    if (w != inlink->w || h != inlink->h) {
        av_log(ctx, AV_LOG_ERROR, "The model makes %dx%d frames of %dx%d ones: dnn_interpolate "
               "needs frames of the input's size\n", w, h, inlink->w, inlink->h);
        return AVERROR(EINVAL);
    }
    outlink->w = w;
    outlink->h = h;
    if (ctx->fps.num > 0) {
        int64_t g;
        ol->frame_rate = ctx->fps;
        outlink->time_base = av_inv_q(ctx->fps);
        ctx->rs_num = inlink->time_base.num * (int64_t)outlink->time_base.den;
        ctx->rs_den = inlink->time_base.den * (int64_t)outlink->time_base.num;
        g = av_gcd(ctx->rs_num, ctx->rs_den);
        ctx->rs_num /= g;
        ctx->rs_den /= g;
    } else {
        if (il->frame_rate.num > 0)
            ol->frame_rate = av_mul_q(il->frame_rate, (AVRational){ ctx->factor, 1 });
        outlink->time_base = av_mul_q(inlink->time_base, (AVRational){ 1, ctx->factor });
        // the frames of a pair are placed in it as integers: it must be exact
        if (av_cmp_q(av_mul_q(outlink->time_base, (AVRational){ ctx->factor, 1 }), inlink->time_base)) {
            av_log(ctx, AV_LOG_ERROR, "The input time base %d/%d divided by %d is no time base: "
                   "set a coarser one first (settb) or use fps\n", inlink->time_base.num,
                   inlink->time_base.den, ctx->factor);
            return AVERROR(EINVAL);
        }
    }
    // the model writes into pooled CUDA frames of the input's size
    if (inlink->format == AV_PIX_FMT_CUDA)
        return ff_dnn_cuda_init_output(outlink, inlink);
    return 0;
}

/** The pair's scene score on a frame of it (made, or repeated at a cut). */
static int set_score(DnnInterpolateContext *ctx, AVFrame *frame)
{
    return ctx->scored ? av_dict_set(&frame->metadata, SCENE_SCORE_KEY, ctx->score, 0) : 0;
}

/**
 * The earlier frame's metadata that is not a frame's made from it: an
 * earlier dnn_interpolate's score, on a frame at another time (made);
 * scdet's, on all but the pair's first frame sent (a later filter with
 * scdet=1 would find the cut on each).
 */
static int drop_earlier_marks(AVFrame *frame, int made, int first)
{
    static const char *const scdet_keys[] = { SCDET_CUT_KEY, "lavfi.scd.score", "lavfi.scd.mafd" };
    int ret = made ? av_dict_set(&frame->metadata, SCENE_SCORE_KEY, NULL, 0) : 0;

    for (int i = 0; i < FF_ARRAY_ELEMS(scdet_keys) && ret >= 0 && !first; i++)
        ret = av_dict_set(&frame->metadata, scdet_keys[i], NULL, 0);
    return ret;
}

/**
 * The end of a pair none of whose output times was sent (fps below the
 * input's rate): a scene's first frame gives its mark to the next frame,
 * so that it goes on the first frame sent of the scene.
 */
static int pass_scene_mark(DnnInterpolateContext *ctx)
{
    const AVDictionaryEntry *mark = av_dict_get(ctx->prev->metadata, SCDET_CUT_KEY, NULL, 0);

    if (!ctx->first_of_pair || !ctx->later || !mark ||
        av_dict_get(ctx->later->metadata, SCDET_CUT_KEY, NULL, 0))
        return 0;
    return av_dict_set(&ctx->later->metadata, mark->key, mark->value, 0);
}

/**
 * Send the earlier frame as it is at output pts: at its own time (t = 0),
 * or repeated at a later one (made: the end, a jump back, a scene cut).
 */
static int send_earlier(AVFilterContext *context, int64_t pts, int64_t duration, int made)
{
    DnnInterpolateContext *ctx = context->priv;
    AVFilterLink *outlink = context->outputs[0];
    AVFrame *out;
    int ret = 0;

    if (ctx->prev->format != AV_PIX_FMT_CUDA) {
        out = av_frame_clone(ctx->prev);
        if (!out)
            return AVERROR(ENOMEM);
    } else {
        // the frame as it is, in a frame of the output's pool: a device copy
        out = ff_get_video_buffer(outlink, outlink->w, outlink->h);
        if (!out)
            return AVERROR(ENOMEM);
        ret = av_frame_copy_props(out, ctx->prev);
        if (ret >= 0)
            ret = ff_dnn_cuda_copy_frame(context, out, ctx->prev);
        if (ret < 0) {
            av_frame_free(&out);
            return ret;
        }
    }
    ret = drop_earlier_marks(out, made, ctx->first_of_pair);
    // a frame between the two of a scene cut found by the score: the score
    if (ret >= 0 && ctx->repeat)
        ret = set_score(ctx, out);
    if (ret < 0) {
        av_frame_free(&out);
        return ret;
    }
    out->pts = pts;
    out->duration = duration;
    ctx->out_end = pts + duration;
    ctx->nb_sent++;
    ctx->first_of_pair = 0;
    return ff_filter_frame(outlink, out);
}

/** Send out[0..nb-1] at the pending times; frees those not sent. */
static int send_pending(AVFilterContext *context, AVFrame **out, int nb)
{
    DnnInterpolateContext *ctx = context->priv;
    int ret = 0;

    for (int i = 0; i < nb; i++) {
        if (ret >= 0)
            ret = set_score(ctx, out[i]);
        if (ret < 0) {
            av_frame_free(&out[i]);
            continue;
        }
        out[i]->pts = ctx->pending[i].pts;
        out[i]->duration = ctx->pending[i].duration;
        ctx->out_end = out[i]->pts + out[i]->duration;
        ctx->nb_sent++;
        ctx->first_of_pair = 0;
        ret = ff_filter_frame(context->outputs[0], out[i]);
    }
    return ret;
}

/**
 * The score the backend gave the pair's first run (scene > 0): above
 * scene, the backend ran no model and wrote nothing into out; the filter
 * sends the earlier frame itself, at these times and the pair's others (no
 * run of the model, no score again).  1 at a cut.
 */
static int take_score(DnnInterpolateContext *ctx, AVFrame *out)
{
    const AVDictionaryEntry *e = av_dict_get(out->metadata, SCENE_SCORE_KEY, NULL, 0);

    if (!e)
        return 0;
    av_strlcpy(ctx->score, e->value, sizeof(ctx->score));
    ctx->scored = 1;
    // the text holds the backend's float exactly: the same comparison
    ctx->repeat = strtof(ctx->score, NULL) > ctx->scene;
    return ctx->repeat;
}

/** The pending times of a scene cut: the earlier frame at each. */
static int send_pending_earlier(AVFilterContext *context, AVFrame **out, int nb)
{
    DnnInterpolateContext *ctx = context->priv;
    int ret = 0;

    for (int i = 0; i < nb; i++) {
        av_frame_free(&out[i]);
        if (ret >= 0)
            ret = send_earlier(context, ctx->pending[i].pts, ctx->pending[i].duration, 1);
    }
    return ret;
}

/**
 * The pending times of the pair (prev, later) in one run of the model (with
 * batch=1, t a 0-D tensor as ever; the backend makes it a batch above).
 */
static int run_pending(AVFilterContext *context, AVFrame *later, int64_t later_id)
{
    DnnInterpolateContext *ctx = context->priv;
    AVFilterLink *outlink = context->outputs[0];
    const int64_t ids[2] = { ctx->prev_id, later_id };
    AVFrame *out[DNN_TIMES_MAX] = { NULL }, *frames[2], *in_frame = NULL, *out_frame = NULL;
    float times[DNN_TIMES_MAX];
    // the pair's score once, on its first run (a host wait on CUDA frames)
    float scene = ctx->scored ? 0 : ctx->scene;
    int nb = ctx->nb_pending, ret = 0;

    if (!nb)
        return 0;
    ctx->nb_pending = 0;
    for (int i = 0; i < nb && ret >= 0; i++) {
        out[i] = ff_get_video_buffer(outlink, outlink->w, outlink->h);
        ret = out[i] ? av_frame_copy_props(out[i], ctx->prev) : AVERROR(ENOMEM);
        // only this run's score (none for a NaN one); out[0] is sent first
        if (ret >= 0)
            ret = drop_earlier_marks(out[i], 1, !i && ctx->first_of_pair);
        times[i] = ctx->pending[i].t;
    }
    // the backend owns in_frame and out[0] from here, and gives them back with the result
    if (ret >= 0 && !(in_frame = av_frame_clone(ctx->prev)))
        ret = AVERROR(ENOMEM);
    if (ret < 0) {
        for (int i = 0; i < nb; i++)
            av_frame_free(&out[i]);
        return ret;
    }
    frames[0] = in_frame;
    frames[1] = later;
    ret = ff_dnn_execute_model_times(&ctx->dnnctx, in_frame, frames, ids, times, nb,
                                     scene, out);
    if (ret == 0 && (ff_dnn_get_result(&ctx->dnnctx, &in_frame, &out_frame) != DAST_SUCCESS ||
                     out_frame != out[0]))
        ret = AVERROR(EIO);
    if (ret != 0) {
        // the failed task stays queued in the backend: a later run would
        // get its result, and the end would wait for it
        ctx->model_failed = 1;
        for (int i = 1; i < nb; i++)
            av_frame_free(&out[i]);
        // the backend has logged why; EIO, as dnn_processing's failed frame
        return AVERROR(EIO);
    }
    av_frame_free(&in_frame);
    if (scene > 0 && take_score(ctx, out[0]))
        return send_pending_earlier(context, out, nb);
    return send_pending(context, out, nb);
}

/**
 * The frame at output pts: a time between the two frames waits for the
 * batch of the pair's times (batch of them, 1 by default: made at once),
 * in order: the frames before it go first; the earlier frame is sent as
 * it is (t = 0), or repeated at another time (t < 0: before it, at the
 * start of the output; no later frame: the end, a jump back, a scene cut).
 */
static int queue_frame(AVFilterContext *context, AVFrame *later, int64_t later_id,
                       int64_t pts, int64_t duration, double t)
{
    DnnInterpolateContext *ctx = context->priv;
    int ret;

    if (t <= 0 || !later) {
        ret = run_pending(context, later, later_id);
        return ret < 0 ? ret : send_earlier(context, pts, duration, t != 0);
    }
    ctx->pending[ctx->nb_pending++] = (PendingTime){ pts, duration, t };
    return ctx->nb_pending == ctx->dnnctx.batch ? run_pending(context, later, later_id) : 0;
}

/** A timestamp that does not fit in 64 bits in the output time base: ERANGE. */
static int out_of_range(AVFilterContext *context, int64_t ts, const char *what)
{
    DnnInterpolateContext *ctx = context->priv;
    AVRational tb = context->outputs[0]->time_base;

    av_log(ctx, AV_LOG_ERROR, "Timestamp %"PRId64" %s is out of range: in the output "
           "time base %d/%d it does not fit in 64 bits\n", ts, what, tb.num, tb.den);
    return AVERROR(ERANGE);
}

/**
 * ts (input time base) in the output time base, exactly (factor) or
 * rounded as rnd (fps), in *out; ERANGE, said, where it does not fit in
 * 64 bits with room for a frame's duration after it.
 */
static int to_out(AVFilterContext *context, int64_t ts, enum AVRounding rnd,
                  int64_t *out, const char *what)
{
    DnnInterpolateContext *ctx = context->priv;
    int64_t r;

    if (ts == AV_NOPTS_VALUE)
        return out_of_range(context, ts, what);
    if (ctx->fps.num <= 0) {
        if (ts > INT64_MAX / ctx->factor || ts < -(INT64_MAX / ctx->factor))
            return out_of_range(context, ts, what);
        *out = ts * ctx->factor;
        return 0;
    }
    // av_rescale_rnd() gives INT64_MIN where the result does not fit
    r = av_rescale_rnd(ts, ctx->rs_num, ctx->rs_den, rnd);
    if (r == INT64_MIN || r == INT64_MAX)
        return out_of_range(context, ts, what);
    *out = r;
    return 0;
}

/**
 * A timestamp of the input: it, and the outputs up to it, fit in the
 * output time base (both roundings of fps).
 */
static int check_ts(AVFilterContext *context, int64_t ts, const char *what)
{
    int64_t out;
    int ret = to_out(context, ts, AV_ROUND_DOWN, &out, what);
    return ret < 0 ? ret : to_out(context, ts, AV_ROUND_UP, &out, what);
}

/**
 * Where output n falls in the pair [start, start + span) (input time base),
 * 0 to 1: an exact fraction rounded once where its terms fit in 64 bits,
 * else n's time split exactly into whole input ticks and the rest of one.
 */
static double pair_time(DnnInterpolateContext *ctx, int64_t n, int64_t start, int64_t span)
{
    int64_t num = ctx->rs_den, den = ctx->rs_num; // output ticks to input ticks
    int64_t q;
    uint64_t rem;

    if (FFABS(n) < INT64_MAX / num && FFABS(start) < INT64_MAX / den && span < INT64_MAX / den)
        return (double)(n * num - start * den) / ((double)span * den);
    // n * num / den = q + rem / den, q in [start, start + span) as n is in
    // the pair; rem in [0, den): exact in modular arithmetic
    q   = av_rescale_rnd(n, num, den, AV_ROUND_DOWN);
    rem = (uint64_t)n * num - (uint64_t)q * den;
    return ((double)(q - start) + (double)rem / den) / span;
}

/**
 * The span of frame, the last one before a jump back or the end (eof_pts,
 * or AV_NOPTS_VALUE): its duration, else up to the end of the stream,
 * else the interval before it; in *end where the frame ends, ERANGE where
 * that does not fit in 64 bits.
 */
static int repeat_span(AVFilterContext *context, const AVFrame *frame, int64_t eof_pts,
                       int64_t *span, int64_t *end)
{
    DnnInterpolateContext *ctx = context->priv;
    int64_t pts = frame->pts;

    if (frame->duration > 0)
        *span = frame->duration;
    else if (eof_pts != AV_NOPTS_VALUE && eof_pts > pts && (pts >= 0 || eof_pts <= INT64_MAX + pts))
        *span = eof_pts - pts;
    else
        *span = FFMAX(ctx->last_span, 1);
    if (pts > INT64_MAX - *span) {
        av_log(ctx, AV_LOG_ERROR, "Timestamp %"PRId64" + %"PRId64" (the end of the last frame) "
               "is out of range: it does not fit in 64 bits\n", pts, *span);
        return AVERROR(ERANGE);
    }
    *end = pts + *span;
    return check_ts(context, *end, "of the end of the last frame");
}

/**
 * fps: the output index where a run ends whose last frame is frame (the
 * end of the stream at eof_pts, or AV_NOPTS_VALUE: a jump back after it),
 * rounded to the nearest as the fps filter rounds its end (eof_action
 * round): the run's outputs are those before it.  The end of the stream
 * is its status's timestamp, as in fps; the frame's end where it has none.
 */
static int run_end(AVFilterContext *context, const AVFrame *frame, int64_t eof_pts, int64_t *lim)
{
    int64_t span, end = eof_pts;
    int ret;

    if (end == AV_NOPTS_VALUE && (ret = repeat_span(context, frame, eof_pts, &span, &end)) < 0)
        return ret;
    return to_out(context, end, AV_ROUND_NEAR_INF, lim, "of the end of the input");
}

/**
 * The pair (prev, later) in hand, from here to its last output time;
 * repeat: the earlier frame repeated (a scene cut, a jump back, the end).
 * [prev->pts, end) in the input time base: end is later's timestamp, or
 * with is_end the end of the run (a jump back to later, or the end of the
 * stream at eof_pts), which fps rounds as the fps filter (run_end()).
 */
static int begin_pair(AVFilterContext *context, AVFrame *later, int64_t later_id,
                      int repeat, int64_t span, int64_t end, int64_t eof_pts, int is_end)
{
    DnnInterpolateContext *ctx = context->priv;
    int64_t start = ctx->prev->pts, down, near;
    int ret;

    ctx->later = later;
    ctx->later_id = later_id;
    ctx->repeat = repeat;
    ctx->scored = 0;
    ctx->first_of_pair = 1;
    ctx->span = FFMAX(span, 1);
    ctx->k = 0;
    if (ctx->fps.num <= 0)
        return 0;
    // the input's timestamps were checked: these fit
    to_out(context, start, AV_ROUND_UP, &ctx->first, "");
    to_out(context, start, AV_ROUND_DOWN, &down, "");
    ctx->first_exact = down == ctx->first;
    if (!ctx->started) {
        // the first output at the first frame's time rounded to the nearest, as fps
        to_out(context, start, AV_ROUND_NEAR_INF, &ctx->next_out, "");
        ctx->started = 1;
    }
    ctx->held = AV_NOPTS_VALUE;
    ctx->decided = 0;
    if (is_end)
        return run_end(context, ctx->prev, eof_pts, &ctx->lim);
    ret = to_out(context, end, AV_ROUND_UP, &ctx->lim, "");
    if (ret >= 0)
        ret = to_out(context, end, AV_ROUND_NEAR_INF, &near, "");
    // the later frame's time rounded down: fps would send the output
    // before it only if the later frame is not the last, or the end is after
    if (ret >= 0 && near < ctx->lim)
        ctx->held = ctx->lim - 1;
    return ret;
}

/**
 * The next output time of the pair in hand: 1 and its place, 0 when none
 * is left, 2 when the next is held (fps: whether it is sent is not known yet).
 */
static int next_time(AVFilterContext *context, int64_t *pts, int64_t *duration, double *t)
{
    DnnInterpolateContext *ctx = context->priv;
    int64_t start = ctx->prev->pts, span = ctx->span;

    if (ctx->fps.num <= 0) {
        if (ctx->k == ctx->factor)
            return 0;
        // the true value, start * factor up to later * factor (both
        // checked to fit), is exact in modular arithmetic: k * span may
        // not fit on its own
        *pts = (int64_t)((uint64_t)start * ctx->factor + (uint64_t)ctx->k * span);
        *duration = span;
        *t = (double)ctx->k++ / ctx->factor;
        return 1;
    }
    // output n is at n * out_tb: before the earlier frame (at the start of
    // the output, rounded as fps), at it, or in the pair
    while (ctx->next_out < ctx->lim) {
        int64_t n = ctx->next_out;
        if (n == ctx->held && !ctx->decided)
            return 2;
        ctx->next_out++;
        if (n == ctx->held && ctx->decided < 0)
            continue;
        *pts = n;
        *duration = 1;
        if (n < ctx->first)
            *t = -1;
        else if (n == ctx->first && ctx->first_exact)
            *t = 0;
        else
            *t = ctx->repeat ? 1 : pair_time(ctx, n, start, span);
        return 1;
    }
    return 0;
}

/**
 * The end of the stream: the GPU runs behind the filter, so a fault in the
 * kernels of the last pairs is only seen when the backend waits for them.
 */
static int wait_for_model(DnnInterpolateContext *ctx)
{
    int ret = ff_dnn_flush(&ctx->dnnctx);
    return ret > 0 ? AVERROR(EIO) : ret;
}

/** The end of the input: the status, once the model's work is done. */
static int finish(AVFilterContext *context, int status, int64_t pts)
{
    DnnInterpolateContext *ctx = context->priv;
    AVFilterLink *inlink = context->inputs[0], *outlink = context->outputs[0];
    int ret = status == AVERROR_EOF ? wait_for_model(ctx) : 0;

    av_frame_free(&ctx->prev);
    // not before the end of the last frame sent; INT64_MIN (none) where
    // it does not fit
    pts = av_rescale_q_rnd(pts, inlink->time_base, outlink->time_base,
                           AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX);
    if (ctx->nb_sent && (pts == AV_NOPTS_VALUE || pts < ctx->out_end))
        pts = ctx->out_end;
    ff_outlink_set_status(outlink, status, pts);
    return ret;
}

/**
 * A frame taken from the input, after ref (NULL: the first): checked;
 * 0 where it has ref's timestamp (dropped, freed), 1 to use it, with
 * *cut set where scdet marked it.
 */
static int take_frame(AVFilterContext *context, AVFrame *in, const AVFrame *ref, int *cut)
{
    DnnInterpolateContext *ctx = context->priv;
    AVFilterLink *inlink = context->inputs[0];
    int ret;

    *cut = 0;
    if (in->format == AV_PIX_FMT_CUDA && (ret = ff_dnn_cuda_check_frame(context, inlink, in)) < 0) {
        av_frame_free(&in);
        return ret;
    }
    if (in->pts == AV_NOPTS_VALUE) {
        av_log(ctx, AV_LOG_ERROR, "A frame without a timestamp: dnn_interpolate places "
               "frames by their timestamps\n");
        av_frame_free(&in);
        return AVERROR(EINVAL);
    }
    if ((ret = check_ts(context, in->pts, "of a frame")) < 0) {
        av_frame_free(&in);
        return ret;
    }
    if (!ref)
        return 1;
    // scdet marks the first frame of a scene: no frame between it and the last one
    *cut = ctx->scdet && av_dict_get(in->metadata, SCDET_CUT_KEY, NULL, 0);
    ctx->scdet_seen |= ctx->scdet && av_dict_get(in->metadata, "lavfi.scd.score", NULL, 0);
    if (in->pts == ref->pts) {
        // once, with the count at the end: a stream may repeat every timestamp
        if (!ctx->nb_same_pts++)
            av_log(ctx, AV_LOG_WARNING, "A frame of the timestamp of the one before (%s s) "
                   "dropped; further ones are counted\n", av_ts2timestr(in->pts, &inlink->time_base));
        ctx->cut_pending |= *cut;
        av_frame_free(&in);
        return 0;
    }
    return 1;
}

/**
 * fps: whether the held output of the pair is sent (1, decided), which
 * the next frame of another timestamp, or the end, tells; 0: not known
 * yet, a frame asked for.  Frames of the later frame's timestamp are
 * dropped here; a status is kept for the pair's end.
 */
static int decide_held(AVFilterContext *context)
{
    DnnInterpolateContext *ctx = context->priv;
    AVFilterLink *inlink = context->inputs[0];
    const AVFrame *later = ctx->later;
    int64_t lim, pts;
    int ret, status, cut;

    while (ff_inlink_queued_frames(inlink)) {
        AVFrame *next = ff_inlink_peek_frame(inlink, 0);
        if (next->pts != AV_NOPTS_VALUE && next->pts > later->pts) {
            ctx->decided = 1;
            return 1;
        }
        if (next->pts != AV_NOPTS_VALUE && next->pts < later->pts) {
            // a jump back: the later frame ends its run as at the end
            if ((ret = run_end(context, later, AV_NOPTS_VALUE, &lim)) < 0)
                return ret;
            ctx->decided = ctx->held < lim ? 1 : -1;
            return 1;
        }
        ret = ff_inlink_consume_frame(inlink, &next);
        if (ret < 0)
            return ret;
        ctx->next_id++;
        if ((ret = take_frame(context, next, later, &cut)) < 0)
            return ret;
    }
    if (ff_inlink_acknowledge_status(inlink, &status, &pts)) {
        ctx->status = status;
        ctx->status_pts = pts;
        if (status != AVERROR_EOF) {
            ctx->decided = -1;
            return 1;
        }
        if ((ret = run_end(context, later, pts, &lim)) < 0)
            return ret;
        ctx->decided = ctx->held < lim ? 1 : -1;
        return 1;
    }
    ff_inlink_request_frame(inlink);
    return 0;
}

/**
 * The pair in hand, one step: its output times up to the first frame sent
 * (a run of the model, or the earlier frame repeated), and the filter is
 * ready again for the next; or, with none left, the end of the pair: its
 * later frame becomes the earlier of the next.
 */
static int step_pair(AVFilterContext *context)
{
    DnnInterpolateContext *ctx = context->priv;
    AVFrame *later = ctx->repeat ? NULL : ctx->later;
    int64_t sent = ctx->nb_sent, pts, duration;
    double t;
    int ret;

    while (ctx->nb_sent == sent) {
        ret = next_time(context, &pts, &duration, &t);
        if (ret == 2) {
            // again when the next frame or the end is there
            ret = decide_held(context);
            if (ret <= 0)
                return ret;
            continue;
        }
        if (!ret) {
            ret = run_pending(context, later, ctx->later_id);
            if (ret >= 0)
                ret = pass_scene_mark(ctx);
            av_frame_free(&ctx->prev);
            ctx->prev = ctx->later;
            ctx->prev_id = ctx->later_id;
            ctx->later = NULL;
            ctx->span = 0;
            if (ctx->restart)
                ctx->started = ctx->restart = 0;
            if (ret >= 0 && ctx->eof)
                return finish(context, AVERROR_EOF, ctx->eof_pts);
            ff_filter_set_ready(context, 100);
            return ret;
        }
        ret = queue_frame(context, later, ctx->later_id, pts, duration, t);
        if (ret < 0)
            return ret;
    }
    // the next step when a frame is wanted (as vf_fps, but not for frames
    // queued at the input: ffmpeg pushes its input and runs the graph until
    // nothing is ready, and a long interval's frames, each a new picture,
    // would all wait at the output)
    if (ff_outlink_frame_wanted(context->outputs[0]))
        ff_filter_set_ready(context, 100);
    return 0;
}

/** A frame taken and none sent: the next one now, if it is there. */
static int next_input(AVFilterContext *context)
{
    if (ff_inlink_queued_frames(context->inputs[0]))
        ff_filter_set_ready(context, 100);
    return 0;
}

static int filter_frame(AVFilterContext *context, AVFrame *in)
{
    DnnInterpolateContext *ctx = context->priv;
    int64_t id = ctx->next_id++, span, end, prev_pts;
    int cut, ret;

    ret = take_frame(context, in, ctx->prev, &cut);
    if (ret <= 0)
        return ret < 0 ? ret : next_input(context);
    if (!ctx->prev) {
        ctx->prev = in;
        ctx->prev_id = id;
        return next_input(context);
    }
    prev_pts = ctx->prev->pts;
    if (in->pts < prev_pts) {
        // a seek: the frames before end as at the end of the stream, and
        // those after start anew (nothing made between the two)
        av_log(ctx, AV_LOG_VERBOSE, "Timestamp %"PRId64" after %"PRId64": a jump back, "
               "interpolation starts again from it\n", in->pts, prev_pts);
        ctx->cut_pending = 0;
        ctx->restart = 1;
        ret = repeat_span(context, ctx->prev, AV_NOPTS_VALUE, &span, &end);
        if (ret < 0) {
            av_frame_free(&in);
            return ret;
        }
        ret = begin_pair(context, in, id, 1, span, end, AV_NOPTS_VALUE, 1);
        return ret < 0 ? ret : step_pair(context);
    }
    if (prev_pts < 0 && in->pts > INT64_MAX + prev_pts) {
        av_log(ctx, AV_LOG_ERROR, "Timestamp %"PRId64" after %"PRId64" is out of range: "
               "the interval between them does not fit in 64 bits\n", in->pts, prev_pts);
        av_frame_free(&in);
        return AVERROR(ERANGE);
    }
    cut |= ctx->cut_pending;
    ctx->cut_pending = 0;
    ctx->last_span = in->pts - prev_pts;
    ret = begin_pair(context, in, id, cut, in->pts - prev_pts, in->pts, AV_NOPTS_VALUE, 0);
    return ret < 0 ? ret : step_pair(context);
}

/** The input's status: with frames, the last one's outputs first. */
static int end_of_input(AVFilterContext *context, int status, int64_t pts)
{
    DnnInterpolateContext *ctx = context->priv;
    int64_t span, end;
    int ret;

    ctx->status = 0;
    if (status != AVERROR_EOF || !ctx->prev)
        return finish(context, status, pts);
    // the last frame repeated, then the status
    ctx->eof = 1;
    ctx->eof_pts = pts;
    ret = repeat_span(context, ctx->prev, pts, &span, &end);
    if (ret >= 0)
        ret = begin_pair(context, NULL, -1, 1, span, end, pts, 1);
    return ret < 0 ? ret : step_pair(context);
}

static int activate(AVFilterContext *context)
{
    DnnInterpolateContext *ctx = context->priv;
    AVFilterLink *inlink = context->inputs[0];
    AVFilterLink *outlink = context->outputs[0];
    AVFrame *in;
    int64_t pts;
    int ret, status;

    FF_FILTER_FORWARD_STATUS_BACK(outlink, inlink);

    // an application may go on after the error: every call ends with it
    if (ctx->model_failed)
        return AVERROR(EIO);
    if (ctx->span)
        return step_pair(context);
    // taken while a pair waited for it
    if (ctx->status)
        return end_of_input(context, ctx->status, ctx->status_pts);

    ret = ff_inlink_consume_frame(inlink, &in);
    if (ret < 0)
        return ret;
    if (ret > 0)
        return filter_frame(context, in);

    if (ff_inlink_acknowledge_status(inlink, &status, &pts))
        return end_of_input(context, status, pts);

    FF_FILTER_FORWARD_WANTED(outlink, inlink);
    return FFERROR_NOT_READY;
}

static av_cold void uninit(AVFilterContext *context)
{
    DnnInterpolateContext *ctx = context->priv;

    // scdet=1 without the scdet filter before: no cut is ever found
    if (ctx->scdet && ctx->next_id > 1 && !ctx->scdet_seen)
        av_log(ctx, AV_LOG_WARNING, "scdet is set, but no frame carried scdet's metadata "
               "(lavfi.scd.score): no scene cut was taken; put the scdet filter before this one\n");
    if (ctx->nb_same_pts > 1)
        av_log(ctx, AV_LOG_WARNING, "%"PRId64" frames of the timestamp of the one before "
               "were dropped\n", ctx->nb_same_pts);
    av_frame_free(&ctx->prev);
    av_frame_free(&ctx->later);
    ff_dnn_uninit(&ctx->dnnctx);
}

static const AVFilterPad dnn_interpolate_inputs[] = {
    {
        .name         = "default",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_input,
    },
};

static const AVFilterPad dnn_interpolate_outputs[] = {
    {
        .name         = "default",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_output,
    },
};

const FFFilter ff_vf_dnn_interpolate = {
    .p.name         = "dnn_interpolate",
    .p.description  = NULL_IF_CONFIG_SMALL("Interpolate frames with a DNN model (LibTorch)."),
    .p.priv_class   = &dnn_interpolate_class,
    .priv_size      = sizeof(DnnInterpolateContext),
    .preinit        = ff_dnn_filter_init_child_class,
    .init           = init,
    .uninit         = uninit,
    FILTER_INPUTS(dnn_interpolate_inputs),
    FILTER_OUTPUTS(dnn_interpolate_outputs),
    FILTER_PIXFMTS_ARRAY(pix_fmts),
    .activate       = activate,
    .flags_internal = FF_FILTER_FLAG_HWFRAME_AWARE,
};
