# ---- the installed library and its packages (c-tests/packages/) ----

# The symbols each library exports, at their version nodes.
test-symbols: $(LIBRARY)
	c-tests/packages/check-symbols.sh $(SHARED) $(PRELOADED)

# The drop-in header compiles wherever the stock one does, warning for warning.
test-headers: $(PC)
	c-tests/packages/header-matrix.sh $(B)/include/rdmaverbs

# A user's install with make install, from a fresh folder.
test-install: $(LIBRARY)
	c-tests/packages/install-test.sh

# ---- Debian packages (debian/) ----

# librdmaverbs1 and librdmaverbs-dev, built from a copy of the tracked files
# (so that the working tree is left alone) with no network at all when
# `unshare` can take it away; then lintian, which must report no error.
DEB := $(B)/deb
deb: vendor
	rm -rf $(DEB) && mkdir -p $(DEB)/rdmaverbs-$(VERSION)
	git ls-files -z | xargs -0 cp -a --parents -t $(DEB)/rdmaverbs-$(VERSION)
	ln -s $(CURDIR)/vendor $(DEB)/rdmaverbs-$(VERSION)/vendor
	cd $(DEB)/rdmaverbs-$(VERSION) && \
		if unshare -n true 2>/dev/null; then nonet="unshare -n"; else nonet=; fi && \
		$$nonet dpkg-buildpackage -us -uc -b
	lintian --allow-root --fail-on error --info --pedantic $(DEB)/*.changes
	@ls $(DEB)/*.deb

# Installs both packages with dpkg, builds and runs the example against the
# system's library with pkg-config only, removes them, checks nothing is left.
test-deb: deb
	c-tests/packages/deb-test.sh $(DEB)

# ---- RPM packages (rpm/rdmaverbs.spec) ----

# rdmaverbs, rdmaverbs-devel, their debuginfo and the source RPM, built by
# rpmbuild from two tarballs (the tracked files; vendor/), with no network
# when `unshare` can take it away; then rpmlint, which must report no error.
# --nodeps: on Debian, rpm's own database knows none of the BuildRequires.
# rpm/macros.debian gives the build what Fedora's redhat-rpm-config does.
RPM := $(B)/rpm
RPMBUILD = rpmbuild --define "_topdir $(CURDIR)/$(RPM)" --nodeps --load rpm/macros.debian
rpm: vendor
	rm -rf $(RPM) && mkdir -p $(RPM)/SOURCES
	git ls-files -z | tar --null -T - --transform 's,^,rdmaverbs-$(VERSION)/,' \
		-czf $(RPM)/SOURCES/rdmaverbs-$(VERSION).tar.gz
	tar -czf $(RPM)/SOURCES/rdmaverbs-$(VERSION)-vendor.tar.gz vendor
	if unshare -n true 2>/dev/null; then nonet="unshare -n"; else nonet=; fi && \
		$$nonet $(RPMBUILD) $(RPMCHECK) -ba rpm/rdmaverbs.spec
	rpmlint -r rpm/rdmaverbs.rpmlintrc rpm/rdmaverbs.spec $(RPM)/SRPMS/*.rpm $(RPM)/RPMS/*/*.rpm
	@ls $(RPM)/SRPMS/*.rpm $(RPM)/RPMS/*/*.rpm

# One version in Cargo.toml, debian/changelog, the spec and the man pages.
test-versions:
	c-tests/packages/versions.sh

# Takes the RPMs apart with rpm2cpio, checks what they provide and require,
# builds and runs the example against the unpacked tree with pkg-config only.
test-rpm: rpm
	c-tests/packages/rpm-test.sh $(RPM)

.PHONY: test-symbols test-headers test-install deb test-deb rpm test-rpm test-versions
