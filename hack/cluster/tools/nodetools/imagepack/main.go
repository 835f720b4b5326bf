// Command imagepack writes images made of local layers into one archive that
// "ctr images import" loads, so that the real node runs images nobody pulls:
//
//	imagepack -out images.tar \
//	  -image localhost/easyai-e2e/torch:1=rootfs.tar \
//	  -image docker.io/library/alpine:3.10=rootfs.tar+nslookup/ \
//	  -image localhost/easyai-e2e/pause:1=pause/ -entrypoint localhost/easyai-e2e/pause:1=/pause
//
// A layer is a tar file or a directory (packed here, owned by root). A layer
// that several images share is written once.
package main

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

type pairs map[string]string

func (p pairs) String() string { return fmt.Sprint(map[string]string(p)) }
func (p pairs) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" || val == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", v)
	}
	p[k] = val
	return nil
}

func main() {
	images, entrypoints := pairs{}, pairs{}
	out := flag.String("out", "", "the archive to write")
	flag.Var(images, "image", "NAME=LAYER[+LAYER...]: an image and its layers, bottom first (repeatable)")
	flag.Var(entrypoints, "entrypoint", "NAME=PATH: the image's entrypoint (repeatable)")
	flag.Parse()
	if *out == "" || len(images) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := pack(*out, images, entrypoints); err != nil {
		fmt.Fprintln(os.Stderr, "imagepack:", err)
		os.Exit(1)
	}
}

func pack(out string, images, entrypoints pairs) error {
	work, err := os.MkdirTemp(filepath.Dir(out), ".imagepack-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	layers := map[string]v1.Layer{}
	refs := map[name.Reference]v1.Image{}
	for ref, spec := range images {
		tag, err := name.NewTag(ref)
		if err != nil {
			return err
		}
		img := empty.Image
		for _, src := range strings.Split(spec, "+") {
			l, ok := layers[src]
			if !ok {
				if l, err = layerOf(src, work, len(layers)); err != nil {
					return fmt.Errorf("%s: layer %s: %w", ref, src, err)
				}
				layers[src] = l
			}
			if img, err = mutate.AppendLayers(img, l); err != nil {
				return err
			}
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return err
		}
		cfg = cfg.DeepCopy()
		cfg.OS, cfg.Architecture = "linux", "amd64"
		cfg.Config.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
		if ep, ok := entrypoints[ref]; ok {
			cfg.Config.Entrypoint = []string{ep}
		}
		if img, err = mutate.ConfigFile(img, cfg); err != nil {
			return err
		}
		refs[tag] = img
	}
	for ref := range entrypoints {
		if _, ok := images[ref]; !ok {
			return fmt.Errorf("-entrypoint names %s, which no -image makes", ref)
		}
	}
	tmp := out + ".tmp"
	if err := tarball.MultiRefWriteToFile(tmp, refs); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, out)
}

// layerOf compresses a tar file, or a directory packed as one, once, with
// gzip's fastest level (the layer is read on this machine only).
func layerOf(src, work string, n int) (v1.Layer, error) {
	info, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	gz := filepath.Join(work, fmt.Sprintf("layer-%d.tar.gz", n))
	f, err := os.Create(gz)
	if err != nil {
		return nil, err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		err = tarDir(zw, src)
	} else {
		err = copyFile(zw, src)
	}
	if err = errors.Join(err, zw.Close(), f.Close()); err != nil {
		return nil, err
	}
	return tarball.LayerFromFile(gz)
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// tarDir packs a small directory of regular files, directories and symbolic
// links, every entry owned by root.
func tarDir(w io.Writer, dir string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(path); err != nil {
				return err
			}
		} else if !info.Mode().IsRegular() && !info.IsDir() {
			return fmt.Errorf("%s: only files, directories and symbolic links are packed", path)
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "root", "root"
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if info.Mode().IsRegular() {
			return copyFile(tw, path)
		}
		return nil
	})
	return errors.Join(err, tw.Close())
}
