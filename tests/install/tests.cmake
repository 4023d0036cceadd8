# Install tests (label unit): `cmake --install` into a temporary prefix, then the installed
# binary run from another directory with a configuration named by a bare name (found in the
# prefix's share/hybrid/config, or in $HYBRID_DATADIR), the man page, and the installed job
# script run from another submit directory (without Slurm: bash + HYBRID_LAUNCHER=mpiexec;
# tests/slurm's slurm_installed_job submits it with sbatch).
add_test(NAME install_prefix
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/install_test.sh ${CMAKE_BINARY_DIR}
          ${HY_TEST_OUT}/install_prefix ${MPIEXEC_EXECUTABLE})
set_tests_properties(install_prefix PROPERTIES LABELS unit TIMEOUT 120 FIXTURES_SETUP hybrid_installed)

# a `git archive` export of HEAD (no .git: how the device machines get the tree) knows its commit:
# app/gitid.txt is filled in by export-subst (.gitattributes) and read by app/gitid.cmake
add_test(NAME gitid_archive COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/gitid_archive.sh ${CMAKE_SOURCE_DIR}
  ${HY_TEST_OUT}/gitid_archive)
set_tests_properties(gitid_archive PROPERTIES LABELS unit TIMEOUT 60 SKIP_RETURN_CODE 77)
