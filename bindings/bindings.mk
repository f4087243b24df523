# ---- the bindings for other languages (bindings/, bindings/README.md) ----

# Each built, and each installed as its README says (bindings/run.sh says how
# each runs from here).
BIND       := $(B)/bindings
JNA_JAR    ?= /usr/share/java/jna.jar
JAVAC      := javac -Xlint:all -Werror -encoding UTF-8
MCS        := mcs -nologo -warnaserror -warn:4
# Maven offline, against Debian's repository (bindings/java/debian-repo.xml).
MVN        := mvn -o -q -B -Dstyle.color=never -s bindings/java/debian-repo.xml -Daether.offline.protocols=file
MVN_JAR    := $(BIND)/java/maven/rdmaverbs-$(VERSION).jar
NUPKG      := $(BIND)/nuget/RdmaVerbs.$(VERSION).nupkg
VENDORED   := vendor/libc/Cargo.toml
BINDINGS   := $(BIND)/layout $(BIND)/librecorder.so \
	$(BIND)/rdmaverbs.jar $(BIND)/java/test/.built $(BIND)/java/examples/.built $(MVN_JAR) \
	$(BIND)/RdmaVerbs.dll $(NUPKG) $(BIND)/RdmaVerbsTest.exe $(BIND)/Rc.exe $(BIND)/rust/debug/examples/rc \
	$(BIND)/Verbs.exe $(BIND)/VerbsObjects.exe $(BIND)/VerbsAsync.exe $(BIND)/Hello.exe $(BIND)/Echo.exe \
	$(BIND)/rust/doc/.ok $(BIND)/java/doc/.ok $(BIND)/rust/package/.ok \
	$(foreach l,python node rust java csharp lua,$(BIND)/install/$(l)/.ok)

bindings: $(BINDINGS)

# One binding alone, with its own toolchain only: the jar with javac and
# Debian's JNA, the .dll with Mono's mcs; each with its test and examples
# (bindings/java/README.md, bindings/csharp/README.md).
bindings-java: $(BIND)/rdmaverbs.jar $(BIND)/java/test/.built $(BIND)/java/examples/.built $(MVN_JAR)
bindings-rust: $(BIND)/rust/package/.ok $(VENDORED)
bindings-csharp: $(BIND)/RdmaVerbs.dll $(NUPKG) $(BIND)/RdmaVerbsTest.exe $(BIND)/Rc.exe $(BIND)/Verbs.exe \
	$(BIND)/VerbsObjects.exe $(BIND)/VerbsAsync.exe $(BIND)/Hello.exe $(BIND)/Echo.exe

# What each binding's layout is compared with: the system headers' sizes,
# offsets and constants, printed by a C program generate.py writes.
$(BIND)/layout: bindings/generate.py bindings/describe.py bindings/api.py
	@mkdir -p $(@D)
	python3 bindings/generate.py --layout-c > $@.c
	$(CC) $(WARN) $(STOCK_CFLAGS) -o $@ $@.c

# The recording provider the bindings' tests post to (bindings/recorder/).
$(BIND)/librecorder.so: $(wildcard bindings/recorder/*.c bindings/recorder/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(STOCK_CFLAGS) -fPIC -shared -o $@ $(filter %.c,$^)

# Each package installed as its README says, from a fresh folder
# BIND/install/LANGUAGE: bindings/install/install.sh runs the README's install block
# as written (the wheel pip installs into a venv, the tarball of npm pack
# with koffi beside it, the jar and pom Maven built, installed into a
# project's repository, the .nupkg restored from a folder, the crates of
# cargo package in a new cargo project, offline, luarocks make of the
# rockspec into a rocks tree) and a small program that uses the
# package. Again when the package, its README
# or install.sh changes; the library need only be there (each binding's
# test, run every time, runs against the library as it is).
$(BIND)/install/python/.ok: bindings/python/README.md bindings/python/pyproject.toml \
	$(wildcard bindings/python/rdmaverbs/*.py) $(wildcard bindings/python/rdmaverbs/*.pyi) \
	$(wildcard bindings/python/rdmaverbs/objects/*.py) $(wildcard bindings/python/rdmaverbs/objects/endpoint/*.py) \
	bindings/python/rdmaverbs/py.typed bindings/python/LICENSE-MIT bindings/python/LICENSE-APACHE \
	$(wildcard bindings/python/examples/*.py bindings/python/tests/*.py)
$(BIND)/install/node/.ok: bindings/node/README.md bindings/node/package.json \
	bindings/node/index.js bindings/node/index.mjs bindings/node/api.js $(wildcard bindings/node/objects/*.js) bindings/node/scripts/install.js \
	bindings/node/index.d.ts bindings/node/index.d.mts bindings/node/api.d.ts bindings/node/LICENSE-MIT bindings/node/LICENSE-APACHE
$(BIND)/install/rust/.ok: bindings/rust/README.md $(BIND)/rust/package/.ok | $(VENDORED)
$(BIND)/install/java/.ok: bindings/java/README.md $(MVN_JAR)
$(BIND)/install/csharp/.ok: bindings/csharp/README.md $(NUPKG)
$(BIND)/install/lua/.ok: bindings/lua/README.md bindings/lua/rdmaverbs.lua $(wildcard bindings/lua/rdmaverbs/*.lua bindings/lua/rdmaverbs/*/*.lua) \
	$(wildcard bindings/lua/*.rockspec)
$(BIND)/install/%/.ok: bindings/install/install.sh bindings/install/%.sh | $(SHARED) $(PC)
	bindings/install/install.sh $(B) $*
	touch $@

$(BIND)/rdmaverbs.jar: $(wildcard bindings/java/src/org/rdmaverbs/*.java)
	rm -rf $(BIND)/java/classes && mkdir -p $(BIND)/java/classes
	$(JAVAC) -cp $(JNA_JAR) -d $(BIND)/java/classes $^
	jar --create --file $@ -C $(BIND)/java/classes .

# The jar and its pom (bindings/java/pom.xml) as Maven builds them, offline,
# against Debian's JNA and plugins; what bindings/java/README.md installs
# into a Maven repository. Its local repository, a copy of what it took from
# Debian's, is build/bindings/java/m2.
$(MVN_JAR): bindings/java/pom.xml bindings/java/debian-repo.xml $(wildcard bindings/java/src/org/rdmaverbs/*.java)
	$(MVN) -f bindings/java/pom.xml -Dmaven.repo.local=$(CURDIR)/$(BIND)/java/m2 \
		-Drdmaverbs.target=$(CURDIR)/$(BIND)/java/maven package
	@touch $@

# The test and the example, each compiled against the jar.
$(BIND)/java/test/.built: $(wildcard bindings/java/test/org/rdmaverbs/*.java)
$(BIND)/java/examples/.built: $(wildcard bindings/java/examples/*.java)
$(BIND)/java/%/.built: $(BIND)/rdmaverbs.jar
	rm -rf $(@D) && mkdir -p $(@D)
	$(JAVAC) -cp $(JNA_JAR):$< -d $(@D) $(filter %.java,$^)
	touch $@

# With its XML documentation (RdmaVerbs.xml, beside it for the IDE), every
# doc comment checked (a malformed one, a cref or param that names nothing,
# is an error); a public member with none is not (CS1591): the generated
# Api.cs has none.
$(BIND)/RdmaVerbs.dll: bindings/csharp/Api.cs bindings/csharp/RdmaVerbs.cs bindings/csharp/Errors.cs $(wildcard bindings/csharp/Objects/*.cs)
	@mkdir -p $(@D)
	$(MCS) -unsafe -target:library -doc:$(BIND)/RdmaVerbs.xml -nowarn:1591 -out:$@ $^

# The NuGet package of the .dll and its XML documentation
# (bindings/csharp/RdmaVerbs.nuspec), alone in its folder: the local source
# bindings/csharp/README.md restores from.
$(NUPKG): bindings/csharp/RdmaVerbs.nuspec $(BIND)/RdmaVerbs.dll
	rm -rf $(@D) && mkdir -p $(@D)
	nuget pack $< -BasePath $(BIND) -OutputDirectory $(@D) -NonInteractive -Verbosity quiet

$(BIND)/RdmaVerbsTest.exe: $(wildcard bindings/csharp/test/*.cs) $(BIND)/RdmaVerbs.dll
	$(MCS) -r:$(BIND)/RdmaVerbs.dll -out:$@ $(filter %.cs,$^)

$(BIND)/Rc.exe: bindings/csharp/examples/Rc.cs $(BIND)/RdmaVerbs.dll
	$(MCS) -r:$(BIND)/RdmaVerbs.dll -out:$@ $<

# The C# verbs client (bindings/verbs-protocol.md), the exchange in the
# object API, the README's client.
$(BIND)/Verbs.exe $(BIND)/VerbsObjects.exe $(BIND)/VerbsAsync.exe $(BIND)/Hello.exe $(BIND)/Echo.exe: $(BIND)/%.exe: bindings/csharp/examples/%.cs $(BIND)/RdmaVerbs.dll
	$(MCS) -r:$(BIND)/RdmaVerbs.dll -out:$@ $<

# The crates (rdmaverbs-sys, and rdmaverbs over it, tokio's feature on),
# linked as pkg-config finds librdmaverbs (here: this tree's uninstalled
# .pc; the library there, linked first); cargo decides what is stale.
$(BIND)/rust/debug/examples/rc: $(PC) FORCE | $(SHARED)
	cd bindings/rust && PKG_CONFIG_PATH=$(CURDIR)/$(B)/pkgconfig CARGO_TARGET_DIR=$(CURDIR)/$(BIND)/rust \
		$(CARGO) build -q --locked --workspace --all-features --examples

# The two crates as crates.io would have them (cargo package: each packaged,
# then built from its package, the safe crate against the packaged raw
# one); what bindings/rust/README.md installs from. --allow-dirty: a tree
# being edited packages what it has.
RUST_PACKAGED := $(wildcard bindings/rust/*.md bindings/rust/build.rs bindings/rust/src/*.rs bindings/rust/src/*/*.rs \
	bindings/rust/examples/*.rs bindings/rust/examples/*/*.rs bindings/rust/tests/*.rs bindings/rust/rdmaverbs-sys/*.md \
	bindings/rust/rdmaverbs-sys/build.rs bindings/rust/rdmaverbs-sys/*/*.rs bindings/rust/rdmaverbs-sys/*/*/*.rs)
# What the Rust README's project takes for crates.io: vendor/ (make vendor),
# made when missing.
$(VENDORED):
	$(CARGO) vendor --locked -q vendor > /dev/null
$(BIND)/rust/package/.ok: bindings/rust/Cargo.toml bindings/rust/Cargo.lock bindings/rust/rdmaverbs-sys/Cargo.toml \
		$(RUST_PACKAGED) | $(SHARED) $(PC)
	rm -f $(BIND)/rust/package/*.crate
	cd bindings/rust && PKG_CONFIG_PATH=$(CURDIR)/$(B)/pkgconfig CARGO_TARGET_DIR=$(CURDIR)/$(BIND)/rust \
		$(CARGO) package -q --locked --allow-dirty --workspace
	@ls $(BIND)/rust/package/rdmaverbs-$(VERSION).crate $(BIND)/rust/package/rdmaverbs-sys-$(VERSION).crate > /dev/null
	touch $@

# The API references: rustdoc of the two crates and javadoc of the Java
# package, each built with every warning an error (javadoc: every doclint
# check but missing comments and tags, which the generated RdmaVerbs.java
# has none of; bindings/java/README.md says so).
$(BIND)/rust/doc/.ok: $(PC) $(wildcard bindings/rust/src/*.rs bindings/rust/src/*/*.rs bindings/rust/*.md \
		bindings/rust/rdmaverbs-sys/src/*.rs bindings/rust/rdmaverbs-sys/*.md) | $(SHARED)
	cd bindings/rust && PKG_CONFIG_PATH=$(CURDIR)/$(B)/pkgconfig CARGO_TARGET_DIR=$(CURDIR)/$(BIND)/rust \
		RUSTDOCFLAGS=-Dwarnings $(CARGO) doc -q --no-deps --locked --workspace --all-features
	@mkdir -p $(@D) && touch $@
$(BIND)/java/doc/.ok: $(wildcard bindings/java/src/org/rdmaverbs/*.java)
	rm -rf $(@D) && mkdir -p $(@D)
	javadoc -Xdoclint:all,-missing -Werror -quiet -encoding UTF-8 -cp $(JNA_JAR) -d $(@D) $^
	touch $@

# The bindings' generated files, enums and layouts against this machine's
# headers, for the languages whose runtime is here without the network
# (make test-rdma-core runs it in each root).
test-bindings-layout: $(BIND)/layout $(LIBRARY) $(EXPORTS)
	bindings/layout.sh $(B) python $$(command -v luajit > /dev/null && echo lua)

test-bindings: $(LIBRARY) $(BINDINGS) $(EXPORTS)
	bindings/test.sh $(B)

.PHONY: bindings bindings-java bindings-csharp bindings-rust test-bindings test-bindings-layout
