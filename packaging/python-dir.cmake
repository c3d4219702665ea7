# Where the Python package goes below an install prefix: a directory the prefix's interpreter
# already searches, so that `import cosserat` works with no PYTHONPATH whenever that is possible.
#
#   cosserat_python_dir(PREFIX PYTHON OUT_DIR OUT_ON_PATH OUT_INTERPRETER)
#
# PREFIX is the install prefix (without DESTDIR), PYTHON the interpreter the package is for. A
# prefix holding a virtual environment (PREFIX/pyvenv.cfg) is asked with its own interpreter.
# OUT_DIR is relative to PREFIX; OUT_ON_PATH is TRUE when the interpreter searches PREFIX/OUT_DIR
# (Debian: /usr -> lib/python3/dist-packages, /usr/local -> lib/python3.X/dist-packages; a venv ->
# lib/python3.X/site-packages; ~/.local -> the user site). Any other prefix gets the usual
# lib/python3.X/site-packages layout, which the interpreter does not search: OUT_ON_PATH is FALSE
# and the caller says which PYTHONPATH to set.
#
# Run as a script it prints the three results, one a line (tests/install.sh checks the choice
# for /usr and /usr/local this way without writing there):
#   cmake -DPREFIX=/usr/local -DPYTHON=/usr/bin/python3 -P packaging/python-dir.cmake

cmake_policy(PUSH)
cmake_policy(VERSION 3.18)  # IN_LIST and empty list elements, also under cmake -P
function(cosserat_python_dir prefix python out_dir out_on_path out_interpreter)
  if(EXISTS "${prefix}/pyvenv.cfg" AND EXISTS "${prefix}/bin/python3")
    set(python "${prefix}/bin/python3")
  endif()
  set(${out_interpreter} "${python}" PARENT_SCOPE)
  execute_process(
    COMMAND "${python}" -c
      "import os, site, sys\nprint('%d.%d' % sys.version_info[:2])\nfor p in sys.path + [site.getusersitepackages()]:\n    print(os.path.realpath(p) if p else '')"
    OUTPUT_VARIABLE query RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    # no interpreter to ask: Debian's layout, and say so
    set(${out_dir} "lib/python3/dist-packages" PARENT_SCOPE)
    set(${out_on_path} FALSE PARENT_SCOPE)
    return()
  endif()
  string(REPLACE "\n" ";" query "${query}")
  list(POP_FRONT query version)
  get_filename_component(real_prefix "${prefix}" REALPATH)
  foreach(dir "lib/python3/dist-packages" "lib/python${version}/dist-packages" "lib/python${version}/site-packages")
    if("${real_prefix}/${dir}" IN_LIST query)
      set(${out_dir} "${dir}" PARENT_SCOPE)
      set(${out_on_path} TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out_dir} "lib/python${version}/site-packages" PARENT_SCOPE)
  set(${out_on_path} FALSE PARENT_SCOPE)
endfunction()
cmake_policy(POP)

if("${CMAKE_SCRIPT_MODE_FILE}" STREQUAL "${CMAKE_CURRENT_LIST_FILE}" AND DEFINED PREFIX)
  if(NOT DEFINED PYTHON)
    set(PYTHON /usr/bin/python3)
  endif()
  cosserat_python_dir("${PREFIX}" "${PYTHON}" dir on_path interpreter)
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${dir}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${on_path}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${interpreter}")
endif()
