# CPACK_POST_BUILD_SCRIPTS: the library package's ldconfig runs from a dpkg trigger, as Debian
# wants (lintian: lacks-ldconfig-trigger, maintscript-calls-ldconfig), not from the postinst and
# postrm that CPack writes for every library in /usr/lib. The package is unpacked, those two
# scripts replaced by `activate-noawait ldconfig`, and packed again.
foreach(deb IN LISTS CPACK_PACKAGE_FILES)
  get_filename_component(name "${deb}" NAME)
  if(NOT name MATCHES "^libcosserat[0-9]+_.*\\.deb$")
    continue()
  endif()
  set(root "${deb}.unpacked")
  file(REMOVE_RECURSE "${root}")
  execute_process(COMMAND dpkg-deb -R "${deb}" "${root}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -R ${deb} failed")
  endif()
  file(REMOVE "${root}/DEBIAN/postinst" "${root}/DEBIAN/postrm")
  file(WRITE "${root}/DEBIAN/triggers" "activate-noawait ldconfig\n")
  execute_process(COMMAND dpkg-deb --root-owner-group --build "${root}" "${deb}" OUTPUT_QUIET RESULT_VARIABLE rc)
  file(REMOVE_RECURSE "${root}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb --build ${deb} failed")
  endif()
endforeach()
