#!/usr/bin/env bash
# Builds Tesseract for the processing image (functions/process/Dockerfile) from Debian bookworm's
# packages: the tesseract program, every shared library it needs down to its own glibc and
# dynamic loader, and the English and Finnish data. Usage: tesseract-layer.sh OUT ROOT
#
# OUT is the folder written (make tesseract-layer: layers/tesseract); ROOT is where the image holds
# it (/opt/tesseract). The program's interpreter is patched to ROOT/lib/ld-linux-x86-64.so.2 and
# its RPATH to ROOT/lib (not $ORIGIN, which glibc finds through /proc), so that it runs on its own
# libraries whatever the base image has: Amazon Linux 2023 has no EPEL (where Amazon Linux 2 got
# Tesseract) and its own repositories could not be searched from this project's machines, and
# Debian's programs are built against glibc 2.36, newer than Amazon Linux 2023's 2.34. The image sets
# TESSDATA_PREFIX=ROOT/share/tessdata.
#
# Needs Debian bookworm's apt (any bookworm machine, or the Dockerfile's build stage, on amd64 or
# arm64), readelf (binutils) and dpkg-deb; run as root where the package lists must be fetched.
# apt-get download checks every package against the archive's signed Release files; OUT/MANIFEST
# lists the package versions taken, and OUT/share/doc their copyright files.
set -euo pipefail
out=${1:?usage: tesseract-layer.sh OUT ROOT}
root=${2:?usage: tesseract-layer.sh OUT ROOT}

# The program, its data, and the packages holding the libraries it loads (ldd of Debian's
# tesseract 5.3.0-2). The walk below fails, naming the library, when this list misses one.
programs="tesseract-ocr libtesseract5 liblept5 tesseract-ocr-eng tesseract-ocr-fin"
libraries="libc6 libgcc-s1 libstdc++6 libgomp1 zlib1g liblzma5 libbz2-1.0 libzstd1 liblz4-1
libarchive13 libacl1 libxml2 libicu72 libcurl4 libnghttp2-14 libidn2-0 libunistring2 librtmp1
libssh2-1 libpsl5 libssl3 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2
libkeyutils1 libldap-2.5-0 libsasl2-2 libbrotli1 libgnutls30 libhogweed6 libnettle8 libgmp10
libp11-kit0 libffi8 libtasn1-6 libpng16-16 libjpeg62-turbo libgif7 libtiff6 libwebp7 libwebpmux3
libopenjp2-7 libdeflate0 libjbig0 liblerc4"

. /etc/os-release
if [ "${VERSION_CODENAME:-}" != bookworm ] || ! command -v apt-get >/dev/null; then
	echo "tesseract-layer: needs Debian bookworm's apt-get (this is ${PRETTY_NAME:-not Debian});" \
		"the processing image builds it in its Debian bookworm build stage" >&2
	exit 1
fi
for tool in readelf dpkg-deb; do
	command -v $tool >/dev/null || { echo "tesseract-layer: needs $tool" >&2; exit 1; }
done

# The libraries are amd64's (the image is x86_64) whatever this machine is; patchelf is this
# machine's, as it runs here.
arch=$(dpkg --print-architecture)
suffix=""
if [ "$arch" != amd64 ]; then
	suffix=":amd64"
	if ! dpkg --print-foreign-architectures | grep -qx amd64; then dpkg --add-architecture amd64; fi
fi
if ! apt-cache show "tesseract-ocr$suffix" >/dev/null 2>&1 || ! apt-cache show patchelf >/dev/null 2>&1; then
	apt-get update -q
fi

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debs" "$work/tree" "$work/patchelf"
chmod 777 "$work/debs" # apt's download sandbox user writes here
pkgs=""
for p in $programs $libraries; do pkgs="$pkgs $p$suffix"; done
(cd "$work/debs" && apt-get download -q $pkgs patchelf) >/dev/null
for deb in "$work"/debs/*.deb; do
	case "$(basename "$deb")" in
	patchelf_*) dpkg-deb -x "$deb" "$work/patchelf" ;;
	*) dpkg-deb -x "$deb" "$work/tree" ;;
	esac
done

rm -rf "$out.tmp" && mkdir -p "$out.tmp/bin" "$out.tmp/lib" "$out.tmp/share/tessdata" "$out.tmp/share/doc"
cp "$work/tree/usr/bin/tesseract" "$out.tmp/bin/"
# Every library the program needs, by the names it asks for, found in the packages' files and
# copied as plain files (symbolic links followed); one missing fails the build.
find_lib() {
	local d
	for d in lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu lib64; do
		# Links are resolved inside the packages' tree: an absolute one would reach this machine's.
		local f=$work/tree/$d/$1
		while [ -L "$f" ]; do
			local t; t=$(readlink "$f")
			case "$t" in /*) f=$work/tree$t ;; *) f=$(dirname "$f")/$t ;; esac
		done
		if [ -f "$f" ]; then echo "$f"; return 0; fi
	done
	return 1
}
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p'; }
queue="$out.tmp/bin/tesseract"
while [ -n "$queue" ]; do
	next=""
	for f in $queue; do
		for lib in $(needed "$f"); do
			[ -e "$out.tmp/lib/$lib" ] && continue
			src=$(find_lib "$lib") || { echo "tesseract-layer: $lib (needed by $(basename "$f")) is in none of the packages: add its package to the list" >&2; exit 1; }
			cp -L "$src" "$out.tmp/lib/$lib"
			next="$next $out.tmp/lib/$lib"
		done
	done
	queue=$next
done
# The dynamic loader, named by libc.so.6's NEEDED as ld-linux-x86-64.so.2, is the program's
# interpreter at ROOT.
test -e "$out.tmp/lib/ld-linux-x86-64.so.2" || { echo "tesseract-layer: no dynamic loader copied" >&2; exit 1; }
chmod 755 "$out.tmp/lib/ld-linux-x86-64.so.2"
patchelf_dir="$work/patchelf/usr/bin"
"$patchelf_dir/patchelf" --set-interpreter "$root/lib/ld-linux-x86-64.so.2" \
	--set-rpath "$root/lib" --force-rpath "$out.tmp/bin/tesseract"

tessdata=$work/tree/usr/share/tesseract-ocr/5/tessdata
cp "$tessdata/eng.traineddata" "$tessdata/fin.traineddata" "$out.tmp/share/tessdata/"
cp -R "$tessdata/configs" "$tessdata/tessconfigs" "$out.tmp/share/tessdata/"
for deb in "$work"/debs/*.deb; do
	p=$(dpkg-deb -f "$deb" Package)
	[ "$p" = patchelf ] && continue
	echo "$p $(dpkg-deb -f "$deb" Version) $(dpkg-deb -f "$deb" Architecture)"
	if [ -f "$work/tree/usr/share/doc/$p/copyright" ]; then
		mkdir -p "$out.tmp/share/doc/$p" && cp "$work/tree/usr/share/doc/$p/copyright" "$out.tmp/share/doc/$p/"
	fi
done | sort > "$out.tmp/MANIFEST"
rm -rf "$out" && mv "$out.tmp" "$out"
echo "tesseract-layer: $out for $root ($(du -sh "$out" | cut -f1), $(ls "$out/lib" | wc -l) libraries, $(wc -l < "$out/MANIFEST") packages)"
