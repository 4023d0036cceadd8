/* validate.c - main of hybrid-validate: pick the subcommand from the table in validate.h,
 * start PETSc/SLEPc with the options after "--", run it, report errors the app's way. */
#include "validate.h"

#include <slepcsys.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *name;
  const char *help;
  int (*run)(int argc, char **argv);
} validate_cmd;

#define VALIDATE_ENTRY_(name, help) {#name, help, validate_##name},
static const validate_cmd validate_cmds[] = {VALIDATE_SUBCOMMANDS(VALIDATE_ENTRY_)};
#undef VALIDATE_ENTRY_
static const int validate_ncmds = (int)(sizeof validate_cmds / sizeof validate_cmds[0]);

/* Print the top-level usage (subcommands, exit codes).  Local. */
static void validate_usage(FILE *fp) {
  fprintf(fp,
          "usage: hybrid-validate SUBCOMMAND [options] [-- PETSc/SLEPc options]\n"
          "       hybrid-validate SUBCOMMAND -h      (options of one subcommand)\n"
          "PETSc/SLEPc reference checker of hybrid (one process, no mpiexec needed).\n"
          "subcommands:\n");
  for (int i = 0; i < validate_ncmds; i++)
    fprintf(fp, "  %-10s %s\n", validate_cmds[i].name, validate_cmds[i].help);
  fprintf(fp, "exit codes: 0 passed, 1 usage, 2 input data, 3 numerical failure of the reference,\n"
              "            4 check failed, 5 system (PETSc, memory, I/O)\n");
}

/* Report a failed run: message on stderr, last line FAILED on stdout.  Local. */
static void validate_report(int rc) {
  fflush(stdout);
  fprintf(stderr, "hybrid-validate: error: %s (%s)\n", hy_err_msg(), hy_err_where());
  fflush(stderr);
  printf("FAILED: %s error (exit %d): %s\n", hy_code_name(rc), rc, hy_err_msg());
  fflush(stdout);
}

/* Dispatch to a subcommand.  Collective on MPI_COMM_WORLD (which must have one process). */
int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "-help") ||
      !strcmp(argv[1], "--help")) {
    validate_usage(argc < 2 ? stderr : stdout);
    if (argc < 2) {
      hy_err(HY_EUSAGE, "no subcommand given");
      validate_report(HY_EUSAGE);
      return HY_EUSAGE;
    }
    return HY_OK;
  }
  const validate_cmd *cmd = NULL;
  for (int i = 0; i < validate_ncmds; i++)
    if (!strcmp(argv[1], validate_cmds[i].name)) cmd = &validate_cmds[i];
  if (!cmd) {
    validate_usage(stderr);
    hy_err(HY_EUSAGE, "unknown subcommand '%s'", argv[1]);
    validate_report(HY_EUSAGE);
    return HY_EUSAGE;
  }

  /* our arguments: argv[1..sep-1] (argv[1] = subcommand); PETSc's: after "--" */
  int sep = 2;
  while (sep < argc && strcmp(argv[sep], "--")) sep++;
  int pargc = 1 + (sep < argc ? argc - sep - 1 : 0);
  char *pargv_store[pargc + 1];
  char **pargv = pargv_store;
  pargv[0] = argv[0];
  for (int i = 1; i < pargc; i++) pargv[i] = argv[sep + i];
  pargv[pargc] = NULL;

  PetscErrorCode ierr = SlepcInitialize(&pargc, &pargv, NULL, NULL);
  if (ierr) {
    fprintf(stderr, "hybrid-validate: SlepcInitialize failed (PETSc error %d)\n", (int)ierr);
    printf("FAILED: system error (exit %d): SlepcInitialize failed\n", HY_ESYS);
    return HY_ESYS;
  }
  int rc = HY_OK;
  PetscMPIInt size = 1;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size != 1) {
    rc = hy_err(HY_EUSAGE, "hybrid-validate runs on one process (started with %d); run it "
                "without mpiexec", (int)size);
  } else if (validate_petsc_errors_init()) {
    rc = hy_err(HY_ESYS, "cannot install the PETSc error handler");
  } else {
    rc = cmd->run(sep - 1, argv + 1);
  }
  if (rc == VALIDATE_HELP) rc = HY_OK;
  else if (rc != HY_OK && rc != HY_EVALID) validate_report(rc);
  /* HY_EVALID: the subcommand printed FAILED itself (validate_verdict) */
  PetscPopErrorHandler();
  SlepcFinalize();
  return rc;
}
