/* timetab.h - what the time tables (peak, temporary, lifetimes) share:
   durations and lifetime buckets as they show them, and the quantiles
   of a lifetime histogram.  The functions of numbers are pure and thread-safe. */
#ifndef HI_TIMETAB_H
#define HI_TIMETAB_H

#include <stddef.h>
#include <stdint.h>

#include "heapinspect/format.h"
#include "report/rmodel.h"

/* Table T of a model M without time data (has_time 0): no columns, so
   no headings and no rows; its legend is the one line saying why, and
   its JSON has "time_data": false (true in the tables with data) and
   the line as "note". */
void hi_table_no_time (const struct hi_model *m, struct hi_table *t);

/* NS nanoseconds as a person reads them, into OUT of SIZE bytes (at
   least 16): "0", "850ns", "12.3us", "4.56ms", "1.23s", "12.3s",
   "2m05s", "3h02m" (three figures, cut, not rounded, so a bucket's
   text never reaches the next unit). */
void hi_duration_text (uint64_t ns, char *out, size_t size);

/* The bucket of histogram LIFE (HI_LIFE_BUCKETS counts of blocks) that
   holds its PERMILLE-th quantile (500: the median, 900: the 90th
   percentile): the bucket of the block of rank ceil(n * permille /
   1000), at least 1, in lifetime order, n the blocks it holds.
   HI_LIFE_BUCKETS if it holds none.  Counts whose sum passes 2^64 are
   taken as saturated (damage: the model clears such histograms). */
unsigned hi_life_quantile (const uint64_t *life, unsigned permille);

/* Bucket K's lifetimes: at least *LO, less than *HI; *HI is 0 for the
   last bucket, which has no upper bound (see hi_life_bucket). */
void hi_life_bounds (unsigned k, uint64_t *lo, uint64_t *hi);

/* Bucket K as the lifetimes table shows it, into OUT of SIZE bytes (at
   least 48): "0", "1B", then "LO-HI" ("512B-1.0K": at least 512 bytes
   allocated, less than 1 K), the last ">=64.0T"; with EXACT the bytes
   as integers ("512-1024").  K >= HI_LIFE_BUCKETS: "-". */
void hi_life_bucket_text (unsigned k, int exact, char *out, size_t size);

#endif
