/* version.c - the version and git id of this build (the id is regenerated at every build, so
 * records and --version never show the id of an older configure). */
#include "runtime/runtime.h"
#include "hybrid_gitid.h"

/* "VERSION (GITID)" pieces.  Local. */
const char *hy_version(void) { return HYBRID_VERSION; }
const char *hy_git_id(void) { return HYBRID_GIT_ID; }
