/*
 * The per-position hot paths of pyfathom, written against the CPython API:
 * Tablebase.probe_wdl, probe_dtz and probe call board_wdl / board_dtz (the
 * core's fathom_probe_{wdl,dtz}_lean), and pyfathom.fathom.tb_probe_wdl is
 * the function of the same name here (Fathom's call, on the default
 * instance of tbprobe.h), instead of their cffi wrappers.
 *
 * Why a few lines of CPython API next to cffi: a cffi call to the lean
 * probe costs about 2,300 instructions before the C core runs, a third of a
 * whole probe_wdl(board) (callgrind, CPython 3.11, cffi 2.1):
 *
 *   - each uint64_t argument goes through PyLong_AsUnsignedLongLong, whose
 *     values above 2**30 (every occupied bitboard with a piece past the
 *     fourth rank) are converted byte by byte by _PyLong_AsByteArray:
 *     ~1,260 for the seven bitboards;
 *   - the arguments are packed into a tuple and unpacked (METH_VARARGS),
 *     and the instance pointer's cdata type is checked: ~700;
 *   - the GIL is released and retaken around the call: ~400.
 *
 * Here the call is METH_FASTCALL (no tuple), each bitboard is read with
 * PyLong_AsUnsignedLongLongMask (a loop over the int's 30-bit digits), and
 * the GIL stays held for the half microsecond of C (releasing it would cost
 * more than another thread could do meanwhile; the batch calls, which run
 * for milliseconds, do release it).  Measured: a probe_wdl(board) 6,700 ->
 * 4,360 instructions, 1.6 -> 0.9 us on the benchmark's boards.
 *
 * Tablebase's probes call the checked form (13 arguments), which also tests
 * the board's castling rights and type, the test that cost their Python
 * method about 290 instructions.  The board's attributes themselves are
 * read in Python, not here: CPython's specialized attribute loads cost
 * about 35 instructions each, PyObject_GetAttr about 210 (measured: see
 * benchmarks/README.md, "Where the time goes").
 *
 * Everything else (batch, root, table registration, the rest of the Fathom
 * facade) stays on cffi; build_ffi.py compiles this file into the same
 * module and declares pyfathom_board_calls_install(), which
 * pyfathom._lowlevel calls once at import.
 *
 * Only the stable ABI of Python 3.10 is used (METH_FASTCALL joined it in
 * 3.10, pyfathom's oldest Python), so the module stays abi3.  A free-
 * threaded CPython has no stable ABI before 3.15: there the full API is
 * used, and the code is the same.
 */

/* As cffi does for the rest of the module: with MSVC, pyconfig.h picks the
 * import library (python3.lib for the stable ABI) from Py_LIMITED_API, so
 * that is defined first; elsewhere pyconfig.h first says whether this
 * CPython is free-threaded. */
#if defined(_MSC_VER) && !defined(Py_GIL_DISABLED) && !defined(Py_LIMITED_API)
#define Py_LIMITED_API 0x030a0000
#endif
#include <pyconfig.h>
#if !defined(Py_GIL_DISABLED) && !defined(Py_LIMITED_API)
#define Py_LIMITED_API 0x030a0000
#endif
#include <Python.h>

#include <stdint.h>

#include "fathom_helpers.h"
#include "tbprobe.h"

/* The name of the capsules that carry a fathom_tb pointer into the calls
 * below: a probe accepts no other object as its instance. */
static const char instance_capsule[] = "pyfathom.fathom_tb";

typedef int32_t (*lean_probe)(fathom_tb *tb, uint64_t white, uint64_t black,
                              uint64_t queens, uint64_t rooks,
                              uint64_t bishops, uint64_t knights,
                              uint64_t pawns, unsigned ep, int turn);

/* The capsule holds a reference to the cffi cdata that owns the instance
 * (ffi.gc calls fathom_close when its last reference goes): a probe in
 * progress keeps the capsule, so the instance, alive through a concurrent
 * Tablebase.close(). */
static void release_owner(PyObject *capsule)
{
    Py_XDECREF((PyObject *)PyCapsule_GetContext(capsule));
}

static int check_count(const char *name, Py_ssize_t nargs, Py_ssize_t expected)
{
    if (nargs == expected)
        return 1;
    PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, expected, nargs);
    return 0;
}

/* pin(owner, address) -> capsule: wraps the instance at `address` (the
 * value of the cdata `owner`, as an int) for the probes below. */
static PyObject *pin(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (!check_count("pin", nargs, 2))
        return NULL;
    void *tb = PyLong_AsVoidPtr(args[1]);
    if (tb == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "pin(): NULL instance");
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(tb, instance_capsule, release_owner);
    if (capsule == NULL)
        return NULL;
    Py_INCREF(args[0]);
    if (PyCapsule_SetContext(capsule, args[0]) != 0) {
        Py_DECREF(args[0]);
        Py_DECREF(capsule);
        return NULL;
    }
    return capsule;
}

/* A bitboard attribute of a board: any int, read modulo 2**64 (python-chess
 * keeps them in 0 .. 2**64 - 1; whatever else a board holds, the core
 * validates the position it makes). */
static int read_bitboard(PyObject *value, uint64_t *out)
{
    unsigned long long bits = PyLong_AsUnsignedLongLongMask(value);
    if (bits == (unsigned long long)-1 && PyErr_Occurred())
        return 0;
    *out = (uint64_t)bits;
    return 1;
}

/* A count or a square (an en-passant square, a clock, castling rights):
 * None is 0; a value outside 0 .. 0xffff (negative, or past any C long) is
 * read as 0xffff, which no such argument may hold, so the probe fails
 * instead of the call raising. */
static int read_small(PyObject *value, unsigned *out)
{
    if (value == Py_None) {
        *out = 0;
        return 1;
    }
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(value, &overflow);
    if (v == -1 && !overflow && PyErr_Occurred())
        return 0;
    *out = overflow || v < 0 || v > 0xffff ? 0xffffu : (unsigned)v;
    return 1;
}

/* The side to move: True is white, anything else by its truth value. */
static int read_turn(PyObject *value, int *out)
{
    if (value == Py_True || value == Py_False) {
        *out = value == Py_True;
        return 1;
    }
    *out = PyObject_IsTrue(value);
    return *out >= 0;
}

/* What a checked call (below) answers for a board the Tablebase method must
 * look at in Python first: castling rights, or a type other than the
 * tablebase's board class (a subclass, or another variant).  Below
 * FATHOM_LEAN_FAILED, so apart from every status, and exported to Python as
 * BOARD_UNCHECKED. */
#define BOARD_UNCHECKED (FATHOM_LEAN_FAILED - 1)

enum { LEAN_ARGUMENTS = 10, CHECKED_ARGUMENTS = 13 };

/* A checked call's three last arguments (castling_rights, board, variant):
 * *plain = 1 if the board may be probed as its bitboards say, tested as the
 * Python methods tested it (type(board) is variant and not castling_rights,
 * by its truth value). */
static int board_is_plain(PyObject *const *extra, int *plain)
{
    *plain = 0;
    if ((PyObject *)Py_TYPE(extra[1]) != extra[2])
        return 1;
    int castling = PyObject_IsTrue(extra[0]);
    *plain = castling == 0;
    return castling >= 0;
}

/* probe(instance, white, black, queens, rooks, bishops, knights, pawns,
 *       ep_square, turn[, castling_rights, board, variant]) -> the lean
 * result (see fathom.h).
 * instance: a capsule from pin(), or None (answered FATHOM_ERR_ARGUMENT,
 * as the core answers a NULL instance);
 * ep_square: None or a square; turn: anything with a truth value.
 * The checked form (13 arguments, Tablebase's probes) answers
 * BOARD_UNCHECKED, without probing, unless castling_rights is false and
 * type(board) is variant exactly. */
static PyObject *call_lean(lean_probe probe, const char *name,
                           PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != LEAN_ARGUMENTS && nargs != CHECKED_ARGUMENTS) {
        PyErr_Format(PyExc_TypeError, "%s() takes %d or %d arguments (%zd given)", name,
                     LEAN_ARGUMENTS, CHECKED_ARGUMENTS, nargs);
        return NULL;
    }
    fathom_tb *tb = NULL;
    if (args[0] != Py_None) {
        tb = (fathom_tb *)PyCapsule_GetPointer(args[0], instance_capsule);
        if (tb == NULL)
            return NULL;
    }
    if (nargs == CHECKED_ARGUMENTS) {
        int plain;
        if (!board_is_plain(args + LEAN_ARGUMENTS, &plain))
            return NULL;
        if (!plain)
            return PyLong_FromLong(BOARD_UNCHECKED);
    }
    uint64_t bitboards[7];
    for (int i = 0; i < 7; i++)
        if (!read_bitboard(args[1 + i], &bitboards[i]))
            return NULL;
    unsigned ep;
    int turn;
    if (!read_small(args[8], &ep) || !read_turn(args[9], &turn))
        return NULL;
    int32_t result = tb == NULL
        ? FATHOM_LEAN_FAILED + FATHOM_ERR_ARGUMENT
        : probe(tb, bitboards[0], bitboards[1], bitboards[2], bitboards[3],
                bitboards[4], bitboards[5], bitboards[6], ep, turn);
    return PyLong_FromLong(result);
}

static PyObject *board_wdl(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    return call_lean(fathom_probe_wdl_lean, "board_wdl", args, nargs);
}

static PyObject *board_dtz(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    return call_lean(fathom_probe_dtz_lean, "board_dtz", args, nargs);
}

/* Fathom's tb_probe_wdl(white, black, kings, queens, rooks, bishops,
 * knights, pawns, rule50, castling, ep, turn) over Python ints, on the
 * default instance of tbprobe.h: pyfathom.fathom.tb_probe_wdl, the call a
 * Python engine makes at every node of its search. */
static PyObject *fathom_probe_wdl_call(PyObject *module, PyObject *const *args,
                                       Py_ssize_t nargs)
{
    (void)module;
    if (!check_count("tb_probe_wdl", nargs, 12))
        return NULL;
    uint64_t bitboards[8];
    for (int i = 0; i < 8; i++)
        if (!read_bitboard(args[i], &bitboards[i]))
            return NULL;
    unsigned rule50, castling, ep;
    int turn;
    if (!read_small(args[8], &rule50) || !read_small(args[9], &castling) ||
        !read_small(args[10], &ep) || !read_turn(args[11], &turn))
        return NULL;
    return PyLong_FromUnsignedLong(tb_probe_wdl(
        bitboards[0], bitboards[1], bitboards[2], bitboards[3], bitboards[4],
        bitboards[5], bitboards[6], bitboards[7], rule50, castling, ep, turn != 0));
}

/* The casts through void (*)(void) are the documented way to store a
 * METH_FASTCALL function in a PyMethodDef (without -Wcast-function-type). */
static PyMethodDef board_calls[] = {
    {"pin", (PyCFunction)(void (*)(void))pin, METH_FASTCALL,
     "pin(owner, address): the capsule the board probes take as instance."},
    {"board_wdl", (PyCFunction)(void (*)(void))board_wdl, METH_FASTCALL,
     "fathom_probe_wdl_lean over Python ints: (instance, white, black, queens, "
     "rooks, bishops, knights, pawns, ep_square, turn[, castling_rights, board, "
     "variant]) -> wdl + 2 or FATHOM_LEAN_FAILED + status; with the last three, "
     "BOARD_UNCHECKED unless type(board) is variant and not castling_rights."},
    {"board_dtz", (PyCFunction)(void (*)(void))board_dtz, METH_FASTCALL,
     "fathom_probe_dtz_lean over Python ints, arguments as board_wdl -> "
     "dtz * 2 + precise or FATHOM_LEAN_FAILED + status."},
    {"tb_probe_wdl", (PyCFunction)(void (*)(void))fathom_probe_wdl_call, METH_FASTCALL,
     /* The first line is the signature help() and inspect show (CPython's
      * text-signature convention for built-in functions: "name(...)\n--\n\n"). */
     "tb_probe_wdl(white, black, kings, queens, rooks, bishops, knights, "
     "pawns, rule50, castling, ep, turn, /)\n--\n\n"
     "Fathom's tb_probe_wdl: WDL of a position, 0..4 (TB_LOSS .. TB_WIN), or\n"
     "TB_RESULT_FAILED (a missing table, more than TB_LARGEST pieces, rule50 or\n"
     "castling not 0).  Bitboards as Python ints (square 0 = a1); ep: the\n"
     "en-passant square or 0; turn: true for white.  See pyfathom.fathom."},
    {NULL, NULL, 0, NULL},
};

/* Adds pin, board_wdl, board_dtz, tb_probe_wdl and BOARD_UNCHECKED to the
 * module pyfathom._core (this file is compiled into it).  Called through
 * cffi, which has released the GIL: it takes it back for the duration.  Returns 1 on success, 0 if the
 * module could not be found or extended (pyfathom._lowlevel then fails its
 * import). */
int pyfathom_board_calls_install(void)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    int ok = 0;
    PyObject *module = PyImport_ImportModule("pyfathom._core");
    if (module != NULL) {
        ok = PyModule_AddIntConstant(module, "BOARD_UNCHECKED", BOARD_UNCHECKED) == 0;
        for (PyMethodDef *def = board_calls; ok && def->ml_name != NULL; def++) {
            PyObject *function = PyCFunction_New(def, NULL);
            ok = function != NULL && PyModule_AddObjectRef(module, def->ml_name, function) == 0;
            Py_XDECREF(function);
        }
        Py_DECREF(module);
    }
    if (!ok)
        PyErr_Clear();
    PyGILState_Release(gil);
    return ok;
}
