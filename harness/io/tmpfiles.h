/* Temporary files a signal must not leave behind. Every temporary file is registered here while it
 * exists; SIGINT, SIGTERM and SIGHUP (on Windows the console's ^C, ^Break, close, logoff and shutdown
 * events, through the OS seam's stop handler, os.h) unlink every registered file, then kill the process with the same
 * signal (its default action), so an interrupted command leaves only whole files and its exit status
 * says which signal stopped it (128 + the signal number in a shell).
 *
 * This holds because
 * - one thread alone takes these signals, the thread that registers, creates, renames and releases the
 *   temporary files (in ciot, the main thread); every other thread runs with them blocked. The pools
 *   create their threads so (pools/pool.h); any other thread must be created the same
 *   way. So the handler never runs beside those steps, only instead of them, and it never returns: a file
 *   registered and not yet created is not created, a file renamed no longer has its temporary name;
 * - the default action comes back only once the files are gone, restored by the handler while the three
 *   signals are blocked. A second signal (timeout(1) sends one to the process and one to its group, an
 *   impatient user presses ^C twice) therefore waits until then; with SA_RESETHAND it could kill the
 *   process in the moment between the first one's taking and its blocking, or on another thread.
 * A signal before ciot_tmpfiles_install kills by the default action: nothing is registered yet, and the
 * exit status is the same. */
#ifndef CIOT_TMPFILES_H
#define CIOT_TMPFILES_H

#include "status.h"

enum { CIOT_TMPFILES_MAX = 32 };

/* Installs the handlers (once per process; later calls do nothing), and an atexit handler that removes
 * what is still registered when the process calls exit(). A signal the process inherited as ignored
 * (nohup, a background job of a non-interactive shell) stays ignored. CIOT_E_SYS when sigaction or
 * atexit refuses. */
ciot_status ciot_tmpfiles_install(void);

/* Registers PATH (copied) for removal by the handlers; *slot receives the handle to release it with.
 * Register before creating the file and release after renaming or removing it: a signal in between
 * unlinks a name that does not exist, which is harmless. CIOT_E_ARG: PATH is NULL, empty or longer than
 * PATH_MAX - 1; CIOT_E_NOMEM: CIOT_TMPFILES_MAX files are registered. Thread-safe. */
ciot_status ciot_tmpfile_register(const char *path, int *slot);
/* Forgets a registration (the file itself is left alone). A negative slot does nothing. */
void ciot_tmpfile_release(int slot);
/* Registered files right now (for tests). */
int ciot_tmpfiles_count(void);

#endif
