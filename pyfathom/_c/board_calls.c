/*
 * The per-position hot paths of pyfathom, written against the CPython API:
 * Tablebase.probe_wdl, probe_dtz and probe call the answer calls below (the
 * core's fathom_probe_{wdl,dtz}_lean, as board_wdl / board_dtz, which
 * pyfathom's other modules call), and pyfathom.fathom.tb_probe_wdl is
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
 * Tablebase's probes call the answer calls (wdl_answer, dtz_answer,
 * probe_answer), which leave their Python method nothing to do on the
 * answered path: they test the board's type and castling rights, read both
 * colours from the occupied_co list, and return the final object (the WDL
 * member, the DTZ int, the Probe record), from references the pinned
 * capsule holds; every other outcome raises the private exception the
 * capsule names, whose handler in Python is the slow path (a try costs
 * nothing until it raises, CPython 3.11+).  Empty piece sets are told by
 * identity with 0, and the capsule by its name's identity.  Measured on
 * bench_python's first 1,000 boards (callgrind, CPython 3.11.7, per call):
 * probe_wdl 4,330 -> 3,860 instructions, probe_dtz 30,300 -> 29,800, probe
 * 32,560 -> 30,420 (its Probe record was built by a Python-level
 * tuple.__new__).  The board's attributes themselves are read
 * in Python, not here: CPython's specialized attribute loads cost about 35
 * instructions each, PyObject_GetAttr about 210 (measured: see
 * benchmarks/README.md, "Where the time goes").
 *
 * Everything else (batch, root, table registration, the rest of the Fathom
 * facade) stays on cffi; build_ffi.py compiles this file into the same
 * module and declares pyfathom_board_calls_install(), which
 * pyfathom._bindings.lowlevel calls once at import.
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

/* The name of the capsules that carry a pinned instance into the calls
 * below: a probe accepts no other object as its instance.  pin() gives its
 * capsules this very pointer, so the calls test the name's identity (two
 * calls of the capsule API, no strcmp): no other capsule can hold it. */
static const char instance_capsule[] = "pyfathom.fathom_tb";

/* A lean result below this is FATHOM_LEAN_FAILED + status; above, an
 * answer (exported to Python as LEAN_FAILURE_BOUND). */
#define LEAN_FAILURE_BOUND (FATHOM_LEAN_FAILED + 256)

enum { WDL_MEMBERS = 5 };

/* What pin() stores in a capsule's context, set once and never changed:
 * the references the answer calls need, held for the capsule's lifetime.
 * The capsule's pointer is the instance itself. */
typedef struct pinned_instance {
    fathom_tb *tb;      /* the instance (also the capsule's pointer) */
    PyObject *owner;    /* the cffi cdata that owns the instance (ffi.gc
                         * calls fathom_close when its last reference goes):
                         * a probe in progress keeps the capsule, so the
                         * instance, alive through a concurrent close() */
    PyObject *variant;  /* the Tablebase's board class */
    PyObject *deferred; /* the exception class an answer call raises for a
                         * board the Python method must look at */
    PyObject *probe;    /* pyfathom.Probe, the tuple subclass of probe_answer */
    PyObject *zero;     /* the int 0, so that python-chess's castling_rights
                         * of 0 is tested by identity */
    PyObject *wdl[WDL_MEMBERS]; /* the WDL members by wdl + 2 */
} pinned_instance;

typedef int32_t (*lean_probe)(fathom_tb *tb, uint64_t white, uint64_t black,
                              uint64_t queens, uint64_t rooks,
                              uint64_t bishops, uint64_t knights,
                              uint64_t pawns, unsigned ep, int turn);

/* Drops what hold_references() took (any of it may be missing). */
static void drop_references(pinned_instance *pin)
{
    Py_XDECREF(pin->owner);
    Py_XDECREF(pin->variant);
    Py_XDECREF(pin->deferred);
    Py_XDECREF(pin->probe);
    Py_XDECREF(pin->zero);
    for (int i = 0; i < WDL_MEMBERS; i++)
        Py_XDECREF(pin->wdl[i]);
    PyMem_Free(pin);
}

static void release_pinned(PyObject *capsule)
{
    pinned_instance *pin = (pinned_instance *)PyCapsule_GetContext(capsule);
    if (pin != NULL)
        drop_references(pin);
}

static int check_count(const char *name, Py_ssize_t nargs, Py_ssize_t expected)
{
    if (nargs == expected)
        return 1;
    PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, expected, nargs);
    return 0;
}

/* The references of pin()'s arguments (owner, variant, wdl_members,
 * deferred, probe) in *pin; 0 with an exception set if wdl_members is not a tuple
 * of five. */
static int hold_references(pinned_instance *pin, PyObject *const *args)
{
    if (!PyTuple_Check(args[3]) || PyTuple_Size(args[3]) != WDL_MEMBERS) {
        PyErr_SetString(PyExc_TypeError, "pin(): wdl_members must be a tuple of five");
        return 0;
    }
    pin->zero = PyLong_FromLong(0);
    if (pin->zero == NULL)
        return 0;
    for (int i = 0; i < WDL_MEMBERS; i++) {
        pin->wdl[i] = PyTuple_GetItem(args[3], i);
        Py_INCREF(pin->wdl[i]);
    }
    pin->owner = args[0];
    pin->variant = args[2];
    pin->deferred = args[4];
    pin->probe = args[5];
    Py_INCREF(pin->owner);
    Py_INCREF(pin->variant);
    Py_INCREF(pin->deferred);
    Py_INCREF(pin->probe);
    return 1;
}

/* pin(owner, address, variant, wdl_members, deferred, probe) -> capsule: wraps
 * the instance at `address` (the value of the cdata `owner`, as an int)
 * for the probes below, with what the answer calls need (see
 * pinned_instance). */
static PyObject *pin(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (!check_count("pin", nargs, 6))
        return NULL;
    void *tb = PyLong_AsVoidPtr(args[1]);
    if (tb == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "pin(): NULL instance");
        return NULL;
    }
    if (!PyExceptionClass_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "pin(): deferred must be an exception class");
        return NULL;
    }
    if (!PyType_Check(args[5]) || !PyType_IsSubtype((PyTypeObject *)args[5], &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "pin(): probe must be a tuple subclass");
        return NULL;
    }
    pinned_instance *held = (pinned_instance *)PyMem_Calloc(1, sizeof *held);
    if (held == NULL)
        return PyErr_NoMemory();
    /* The destructor ignores a capsule without context: until the context
     * is set, held is this function's to drop. */
    PyObject *capsule = NULL;
    held->tb = (fathom_tb *)tb;
    if (hold_references(held, args))
        capsule = PyCapsule_New(tb, instance_capsule, release_pinned);
    if (capsule == NULL || PyCapsule_SetContext(capsule, held) != 0) {
        Py_XDECREF(capsule);
        drop_references(held);
        return NULL;
    }
    return capsule;
}

/* The pinned instance a call was given; NULL with an exception set for any
 * other object. */
static pinned_instance *pinned_of(PyObject *capsule)
{
    const char *name = PyCapsule_GetName(capsule);
    if (name == instance_capsule)
        return (pinned_instance *)PyCapsule_GetContext(capsule);
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "not an instance pinned by pyfathom's pin()");
    return NULL;
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

/* The bitboards after the two colours (queens .. pawns), the en-passant
 * square and the turn, from args[0..6], into bitboards[2..6], *ep, *turn
 * (pin may be NULL). */
static int read_pieces(const pinned_instance *pin, PyObject *const *args,
                       uint64_t bitboards[7], unsigned *ep, int *turn)
{
    /* Most piece sets of a small position are empty: python-chess's 0 is
     * CPython's cached small int, told by identity without a call. */
    PyObject *zero = pin == NULL ? NULL : pin->zero;
    for (int i = 0; i < 5; i++) {
        if (args[i] == zero)
            bitboards[2 + i] = 0;
        else if (!read_bitboard(args[i], &bitboards[2 + i]))
            return 0;
    }
    return read_small(args[5], ep) && read_turn(args[6], turn);
}

enum { LEAN_ARGUMENTS = 10 };

/* probe(instance, white, black, queens, rooks, bishops, knights, pawns,
 *       ep_square, turn) -> the lean result (see fathom_helpers.h).
 * instance: a capsule from pin(), or None (answered FATHOM_ERR_ARGUMENT,
 * as the core answers a NULL instance);
 * ep_square: None or a square; turn: anything with a truth value. */
static PyObject *call_lean(lean_probe probe, const char *name,
                           PyObject *const *args, Py_ssize_t nargs)
{
    if (!check_count(name, nargs, LEAN_ARGUMENTS))
        return NULL;
    const pinned_instance *pin = NULL;
    if (args[0] != Py_None && (pin = pinned_of(args[0])) == NULL)
        return NULL;
    uint64_t bitboards[7];
    unsigned ep;
    int turn;
    if (!read_bitboard(args[1], &bitboards[0]) || !read_bitboard(args[2], &bitboards[1]) ||
        !read_pieces(pin, args + 3, bitboards, &ep, &turn))
        return NULL;
    fathom_tb *tb = pin == NULL ? NULL : pin->tb;
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

/* What an answer call (below) puts in its deferred exception for a board
 * the Tablebase method must look at in Python first: castling rights, a
 * type other than the tablebase's board class (a subclass, or another
 * variant), or an occupied_co that is not a list of two ints.  Below
 * FATHOM_LEAN_FAILED, so apart from every status; exported to Python as
 * BOARD_UNCHECKED. */
#define BOARD_UNCHECKED (FATHOM_LEAN_FAILED - 1)

/* Raises pin->deferred(lean), the lean result or BOARD_UNCHECKED. */
static PyObject *defer(const pinned_instance *pin, int32_t lean)
{
    PyObject *value = PyLong_FromLong(lean);
    if (value != NULL) {
        PyErr_SetObject(pin->deferred, value);
        Py_DECREF(value);
    }
    return NULL;
}

/* Whether the board may be probed as its bitboards say, tested as the
 * Python methods tested it: type(board) is the tablebase's class and
 * castling_rights is false (python-chess's 0 by identity, anything else by
 * its truth value).  -1 with an exception set if that truth value raises. */
static int board_is_plain(const pinned_instance *pin, PyObject *castling_rights,
                          PyObject *board)
{
    if ((PyObject *)Py_TYPE(board) != pin->variant)
        return 0;
    if (castling_rights == pin->zero)
        return 1;
    int castling = PyObject_IsTrue(castling_rights);
    return castling < 0 ? -1 : !castling;
}

/* Item i of a list that holds at least i + 1.  With the GIL, a borrowed
 * reference: nothing else runs until the caller is done with it.  A
 * free-threaded CPython may replace the item meanwhile, so there the
 * reference is a new one, which release_item() drops (and NULL if another
 * thread shrank the list). */
#ifdef Py_GIL_DISABLED
static PyObject *list_item(PyObject *list, Py_ssize_t i)
{
    PyObject *item = PyList_GetItemRef(list, i);
    if (item == NULL)
        PyErr_Clear();
    return item;
}
#define release_item(item) Py_XDECREF(item)
#else
#define list_item(list, i) PyList_GetItem((list), (i))
#define release_item(item) ((void)(item))
#endif

/* The two colours of board.occupied_co (python-chess's [black, white]) into
 * bitboards[0..1]: 1, or 0 if it is not a list of two exact ints (the
 * Python method then reads it as before).  An exact int's conversion runs
 * no Python code and cannot fail. */
static int read_colours(PyObject *occupied_co, uint64_t bitboards[7])
{
    if (!PyList_CheckExact(occupied_co) || PyList_Size(occupied_co) != 2)
        return 0;
    for (int colour = 0; colour < 2; colour++) { /* white is item 1 */
        PyObject *bits = list_item(occupied_co, 1 - colour);
        int exact = bits != NULL && PyLong_CheckExact(bits);
        if (exact)
            bitboards[colour] = (uint64_t)PyLong_AsUnsignedLongLongMask(bits);
        release_item(bits);
        if (!exact)
            return 0;
    }
    return 1;
}

typedef PyObject *(*answer_of)(const pinned_instance *pin, int32_t lean);

static PyObject *wdl_member(const pinned_instance *pin, int32_t lean)
{
    if (lean < 0 || lean >= WDL_MEMBERS) {
        PyErr_Format(PyExc_SystemError, "pyfathom: the core answered WDL %d", (int)lean - 2);
        return NULL;
    }
    Py_INCREF(pin->wdl[lean]);
    return pin->wdl[lean];
}

/* dtz * 2 + precise -> dtz (floor division: precise is the low bit). */
static long dtz_of(int32_t lean)
{
    return ((long)lean - (lean & 1)) / 2;
}

static PyObject *dtz_int(const pinned_instance *pin, int32_t lean)
{
    (void)pin;
    return PyLong_FromLong(dtz_of(lean));
}

/* The Probe (wdl, dtz, dtz_precise) of a DTZ lean result.  The WDL follows
 * from the DTZ (python-chess's table, see Tablebase.probe_dtz): the one
 * place that says how.  Made as tuple.__new__(Probe, fields) makes a tuple
 * subclass (its tp_alloc, then the items), without that Python-level call. */
static PyObject *probe_record(const pinned_instance *pin, int32_t lean)
{
    long dtz = dtz_of(lean);
    int wdl = dtz > 100 ? 3 : dtz > 0 ? 4 : dtz < -100 ? 1 : dtz < 0 ? 0 : 2;
    PyTypeObject *probe = (PyTypeObject *)pin->probe;
    allocfunc alloc = (allocfunc)PyType_GetSlot(probe, Py_tp_alloc);
    PyObject *record = alloc == NULL ? NULL : alloc(probe, 3);
    PyObject *value = PyLong_FromLong(dtz);
    if (record == NULL || value == NULL) {
        Py_XDECREF(record);
        Py_XDECREF(value);
        return NULL;
    }
    Py_INCREF(pin->wdl[wdl]);
    PyTuple_SetItem(record, 0, pin->wdl[wdl]);
    PyTuple_SetItem(record, 1, value);
    PyTuple_SetItem(record, 2, PyBool_FromLong(lean & 1));
    return record;
}

enum { ANSWER_ARGUMENTS = 11 };

/* answer(instance, occupied_co, queens, rooks, bishops, knights, pawns,
 *        ep_square, turn, castling_rights, board) -> the final answer
 * (answer_of), for Tablebase's probes: the board's attributes as they are.
 * Everything else raises the pinned instance's deferred exception with
 * the lean result, or BOARD_UNCHECKED (board_is_plain, read_colours);
 * instance must be a capsule from pin(). */
static PyObject *call_answer(lean_probe probe, answer_of answer, const char *name,
                             PyObject *const *args, Py_ssize_t nargs)
{
    if (!check_count(name, nargs, ANSWER_ARGUMENTS))
        return NULL;
    const pinned_instance *pin = pinned_of(args[0]);
    if (pin == NULL)
        return NULL;
    int plain = board_is_plain(pin, args[9], args[10]);
    if (plain <= 0)
        return plain < 0 ? NULL : defer(pin, BOARD_UNCHECKED);
    uint64_t bitboards[7];
    unsigned ep;
    int turn;
    if (!read_colours(args[1], bitboards))
        return defer(pin, BOARD_UNCHECKED);
    if (!read_pieces(pin, args + 2, bitboards, &ep, &turn))
        return NULL;
    int32_t lean = probe(pin->tb, bitboards[0], bitboards[1], bitboards[2], bitboards[3],
                         bitboards[4], bitboards[5], bitboards[6], ep, turn);
    return lean < LEAN_FAILURE_BOUND ? defer(pin, lean) : answer(pin, lean);
}

static PyObject *wdl_answer(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    return call_answer(fathom_probe_wdl_lean, wdl_member, "wdl_answer", args, nargs);
}

static PyObject *dtz_answer(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    return call_answer(fathom_probe_dtz_lean, dtz_int, "dtz_answer", args, nargs);
}

static PyObject *probe_answer(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    return call_answer(fathom_probe_dtz_lean, probe_record, "probe_answer", args, nargs);
}

/* probe_record(instance, lean): probe_answer's Probe for a DTZ lean result
 * found another way (the Python method's slow path). */
static PyObject *probe_record_call(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (!check_count("probe_record", nargs, 2))
        return NULL;
    const pinned_instance *pin = pinned_of(args[0]);
    if (pin == NULL)
        return NULL;
    long lean = PyLong_AsLong(args[1]);
    if (lean == -1 && PyErr_Occurred())
        return NULL;
    if (lean < LEAN_FAILURE_BOUND || lean > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "probe_record(): not a DTZ answer");
        return NULL;
    }
    return probe_record(pin, (int32_t)lean);
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
     "pin(owner, address, variant, wdl_members, deferred, probe): the capsule the board "
     "probes take as instance."},
    {"board_wdl", (PyCFunction)(void (*)(void))board_wdl, METH_FASTCALL,
     "fathom_probe_wdl_lean over Python ints: (instance, white, black, queens, "
     "rooks, bishops, knights, pawns, ep_square, turn) -> wdl + 2 or "
     "FATHOM_LEAN_FAILED + status."},
    {"board_dtz", (PyCFunction)(void (*)(void))board_dtz, METH_FASTCALL,
     "fathom_probe_dtz_lean over Python ints, arguments as board_wdl -> "
     "dtz * 2 + precise or FATHOM_LEAN_FAILED + status."},
    {"wdl_answer", (PyCFunction)(void (*)(void))wdl_answer, METH_FASTCALL,
     "(instance, occupied_co, queens, rooks, bishops, knights, pawns, ep_square, "
     "turn, castling_rights, board) -> the WDL member, or raises the instance's "
     "deferred exception with the lean result or BOARD_UNCHECKED."},
    {"dtz_answer", (PyCFunction)(void (*)(void))dtz_answer, METH_FASTCALL,
     "wdl_answer's arguments -> the DTZ, or raises as wdl_answer."},
    {"probe_answer", (PyCFunction)(void (*)(void))probe_answer, METH_FASTCALL,
     "wdl_answer's arguments -> the pinned Probe class's (wdl, dtz, dtz_precise), "
     "or raises as wdl_answer."},
    {"probe_record", (PyCFunction)(void (*)(void))probe_record_call, METH_FASTCALL,
     "probe_record(instance, lean): probe_answer's Probe for a DTZ lean answer."},
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

/* Adds the functions of board_calls, BOARD_UNCHECKED and LEAN_FAILURE_BOUND
 * to the module pyfathom._core (this file is compiled into it).  Called
 * through cffi, which has released the GIL: it takes it back for the
 * duration.  Returns 1 on success, 0 if the
 * module could not be found or extended (pyfathom._bindings.lowlevel then fails its
 * import). */
int pyfathom_board_calls_install(void)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    int ok = 0;
    PyObject *module = PyImport_ImportModule("pyfathom._core");
    if (module != NULL) {
        ok = PyModule_AddIntConstant(module, "BOARD_UNCHECKED", BOARD_UNCHECKED) == 0 &&
             PyModule_AddIntConstant(module, "LEAN_FAILURE_BOUND", LEAN_FAILURE_BOUND) == 0;
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
