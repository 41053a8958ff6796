/*
 * tbconfig.h as engines vendored it with Fathom before 2019 (Ethereal,
 * xiphos): switches only, none of the TB_VALUE_* / TB_MAX_MATE_PLY
 * constants Fathom added later.  Written here for the test from what such
 * a file declares; every switch is left off, as most engines left them.
 */
#ifndef TBCONFIG_H
#define TBCONFIG_H
/* #define TB_NO_THREADS */
/* #define TB_NO_HELPER_API */
#endif
