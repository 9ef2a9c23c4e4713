package fetch

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dpmne/dpmne/internal/atomicfile"
)

// File is one file of a data set: where it goes under the data directory,
// its SHA-256, and where it comes from. When Member is set, URL is a zip
// archive and the file is its member whose base name is Member.
type File struct {
	Path   string
	SHA256 string
	URL    string
	Member string
}

// Dataset is the list of files of a named data set.
type Dataset struct {
	Name   string
	Source string // where the files come from, in words
	Files  []File
}

const gh = "https://raw.githubusercontent.com/"

// Sources lists the public sources of the named data sets, with the commits
// and checksums of ../shared/data/README.md and SHA256SUMS.
var Sources = map[string]Dataset{
	"cora": {Name: "cora", Source: "LINQS Cora, from the cora.zip of paologentleman/Graph-Attention-Networks",
		Files: zipFiles(gh+"paologentleman/Graph-Attention-Networks/af71700de635b274b7e1625854a5f5207e875eb5/data/cora.zip", "cora/", [][2]string{
			{"README", "ecfcfcdc830c6fe49a148c318044cd65d8335c9442c6ba5d9fba1bcee9bc7a0d"},
			{"cora.cites", "ec1a372391b7f0f60a6aff0084e8abd8f19f0faa7e1f2441a41c492042d5945e"},
			{"cora.content", "b8ebed0fd45e53995abafd1b70cf6a9fcc8f86abc5826d69b97fe6ca46e9c8ee"},
		})},
	"acm": {Name: "acm", Source: "HAN's ACM3025.mat, from googlebaba/WWW2020-O2MAC", Files: []File{{
		Path: "acm3025/ACM3025.mat", SHA256: "b10e486a49892307a56a3d9ad48128a948d2bf2da19db9e6e7f79c6622529fdc",
		URL: gh + "googlebaba/WWW2020-O2MAC/f663628eddd253c23c5c60f5a098c1ad38e92e6d/data/ACM3025.mat",
	}}},
	"dblp4057": {Name: "dblp4057", Source: "HAN's DBLP in HeCo's packaging, from liun-online/HeCo",
		Files: plainFiles(gh+"liun-online/HeCo/20e8ca2042838877b2c815279920218b6bbea1db/data/dblp/", "dblp4057-heco/", [][2]string{
			{"a_feat.npz", "997876bf8d90d29fdb90bf4801a9909893a9ee5646a85aeca079ce167595ec41"},
			{"apa.npz", "db86d949728d422cf388741d3cd80280e0ab79ac27242b3d0a0a0635a476a3bb"},
			{"apcpa.npz", "25181174771506d9636daae4eb98fe048c61654cd1280cf35315c7c4adde0f56"},
			{"labels.npy", "817efdc3ebb9e96067b8770dad5894b06ecabde2ac95d4b17443985f0439fda7"},
			{"pa.txt", "94cf38a92733d21664f55907305773bb6fb90dd9d1579392517596488f061382"},
			{"pc.txt", "316182e11f19fddfc3a01ebd6541134a7c3931ee62262e638be607bb3f9768e4"},
			{"pt.txt", "78f3d6f9a528ed112a2d29bd2a672cdf13a03779a87ce89856e6a622eda280b8"},
			{"test_20.npy", "a7fc6b67e477df8301915065b116fb7742d99f28323a2bf8bcb57663a2d5c490"},
			{"test_40.npy", "9af7116d1d11e656e4fc64dc11601353a3f37cad8fb9ffe8d71cf16d7e2a7ca6"},
			{"test_60.npy", "52122be025ae02256f82376bc62d1ba74083a4473a211e89a1389d67ca6e68bb"},
			{"train_20.npy", "85f0e91265931c8b1433ed7bd04e7e8f4c8c4246784d4443c147d6f24cccc709"},
			{"train_40.npy", "82cead2b36410b52729e2034c0e75de55779e718e4a35f7cc0a31b25526d8c2b"},
			{"train_60.npy", "47086d378beda443b1a2aa1bb2d681e5a6d2b3e819a3e9850e365ea1f8f9b819"},
			{"val_20.npy", "6c06b017a4c45c7cd9d01c67fb409336ddcd5c076edb9c90792cc2d027565d38"},
			{"val_40.npy", "b4c0b94ed81eeb28fe9bf6dd4a057de9093aa512caf4197165a2634568e7b2d5"},
			{"val_60.npy", "7ba309a9daec8bd5d92e217cecc6a22d8547b7b0193a8a30855fffd41636cec6"},
		})},
	"freebase": {Name: "freebase", Source: "HeCo's Freebase movies, from liun-online/HeCo",
		Files: plainFiles(gh+"liun-online/HeCo/20e8ca2042838877b2c815279920218b6bbea1db/data/freebase/", "heco-freebase/", [][2]string{
			{"labels.npy", "2410a09263b9d82e4bc58c36e4499ae8c5e2aa09011f71f5bbb73fda43bcf1fe"},
			{"ma.txt", "058903c3ad171bbe4d9cf15d93f2aa5b3d2086ae0d2e0fd7b99e3e81632d1c5e"},
			{"mam.npz", "113c840d1adcef7d5fd985924894a3792945b4426dcbf526179df61ddb6b5021"},
			{"md.txt", "dbe17829c81248a4103f5e9cb7b1cab8aa1308ee28f1465b10ac893a897d772f"},
			{"mdm.npz", "2382d3ecedbb68858feeaecb9b627087a072b4ec53e31112b6147e28136fe767"},
			{"mw.txt", "866ff0bc4e263885f593ee72e4393445eb0d9f471db9eb2932780374b4467c9b"},
			{"mwm.npz", "1c71c345d33282328d0c3d3480a7d8e2fada6a61f68f5b3c8e904945503b7a6d"},
		})},
	"aminer": {Name: "aminer", Source: "HeCo's AMiner papers, from liun-online/HeCo",
		Files: plainFiles(gh+"liun-online/HeCo/20e8ca2042838877b2c815279920218b6bbea1db/data/aminer/", "heco-aminer/", [][2]string{
			{"labels.npy", "51a0500d6f74ee8745fc2d0f85c38dcdba064878980b890d5a347f29d68b531d"},
			{"pa.txt", "6e644c162db67840a414483890fe052fafa4deb4a3c5fa5a31e9bf7d87236885"},
			{"pap.npz", "058b211cfb6bcf130a9cf6b1c1e338d8fabf09cd8ef5888f7d7ba7064deef825"},
			{"pr.txt", "04238431ee02107b88883b689c9920d77a5a718aca39b85cf7aa77f77aad1e5f"},
			{"prp.npz", "4f63835c4b0a7d8e62beb78823d5d3ec906ce49d2ed51f54450a8edbdc471303"},
		})},
	"ckm": deDomenico("ckm", "CKM-Physicians-Innovation_Multiplex_Social", "CKM-Physicians-Innovation",
		"3b9fb71d7eb2f6e51c0eeaa846899eea05b9b51f75533c59b4cb0a77e446ffb1",
		"d8b12afaf49aa08d858786077bc4c66bcc8d579120939a6fa1e5263fcad8295f",
		"ab77f623e3ce53c492145f152634e2488557c583b68f7697ef171216aa237f39"),
	"lazega": deDomenico("lazega", "Lazega-Law-Firm_Multiplex_Social", "Lazega-Law-Firm",
		"d73ef1589c0cbac71bbd0af6d0789bf67258a7ce40c8be3e6cb8b4277fdfa16e",
		"5a5cf04a017a57e32e346990043a6ae7d0852c1d1dcfd1f374c988fe7370c503",
		"66c1599ccbaca159bb041d3df8a8f5c4cf1df23128ddbc29f96a2c8c1b92ec50"),
	"aarhus": deDomenico("aarhus", "CS-Aarhus_Multiplex_Social", "CS-Aarhus",
		"fc35f65fb9140c5e1d9dfefb9df18f9b5ec8e600e06583d041abb3cf5d2cccf7",
		"bb2875b2a40461717aabbcc0793be862c9afed176ad7d2b94c54133eca7f621c",
		"f9610d3d94a876f25f7efa2afab68ba904351f3ddc2cbbe8d47b25ee7e21010c"),
	"euair": deDomenico("euair", "EUAir_Multiplex_Transport", "EUAirTransportation",
		"202e869fb9e960ce334969471d448df4b1fc0ecd91a3b90a44ada05cb64666c0",
		"781bc202cdce79cf196c9ec7c5b8379de0f2bcf94a25e525860cf8e022ec67ec",
		"f520af035283a40b5ac191144a228b968d2fd9a9398737306dd0e23edd4aaa1d"),
	"vickers": {Name: "vickers", Source: "De Domenico's Vickers-Chan 7th graders, from HKUST-KnowComp/MNE", Files: []File{{
		Path:   "dedomenico-multiplex/Vickers-Chan-7thGraders_Multiplex_Social/Vickers-Chan-7thGraders_multiplex.edges",
		SHA256: "2954ff63f813b47f092b168fa8a36549f96f80377884c6e0b0c5806b578df602",
		URL:    gh + "HKUST-KnowComp/MNE/f64a079ee7d861331f1343709dbe42e77609805c/data/Vickers-Chan-7thGraders_multiplex.edges",
	}}},
}

func zipFiles(url, dir string, files [][2]string) []File {
	var out []File
	for _, f := range files {
		out = append(out, File{Path: dir + f[0], SHA256: f[1], URL: url, Member: f[0]})
	}
	return out
}

func plainFiles(urlDir, dir string, files [][2]string) []File {
	var out []File
	for _, f := range files {
		out = append(out, File{Path: dir + f[0], SHA256: f[1], URL: urlDir + f[0]})
	}
	return out
}

func deDomenico(name, dir, stem, layers, edges, nodes string) Dataset {
	base := gh + "CompNet/MultiplexCentrality/9069d5eee92f64accfb63b87bf2e1ccb962abd37/data/" + dir + "/Dataset/"
	return Dataset{Name: name, Source: "De Domenico's multiplex collection, from CompNet/MultiplexCentrality",
		Files: plainFiles(base, "dedomenico-multiplex/"+dir+"/", [][2]string{
			{stem + "_layers.txt", layers}, {stem + "_multiplex.edges", edges}, {stem + "_nodes.txt", nodes},
		})}
}

// Names returns the names of the data sets that can be fetched, sorted.
func Names() []string {
	var s []string
	for k := range Sources {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// Options configures Fetch.
type Options struct {
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
	// BaseURL, when set, replaces the "https://raw.githubusercontent.com/"
	// prefix of every URL (for mirrors, and for tests).
	BaseURL string
	// Log receives one line per file; nil discards.
	Log io.Writer
	// MaxBytes bounds each download; 0 means 512 MiB.
	MaxBytes int64
}

// Fetch downloads the data set name into dataDir, skipping files already
// present with the right checksum.
func Fetch(ctx context.Context, name, dataDir string, opt Options) error {
	ds, ok := Sources[name]
	if !ok {
		return fmt.Errorf("no public source known for data set %q: want one of %s", name, strings.Join(Names(), ", "))
	}
	if opt.Client == nil {
		opt.Client = http.DefaultClient
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.MaxBytes == 0 {
		opt.MaxBytes = 512 << 20
	}
	archives := make(map[string][]byte)
	for _, f := range ds.Files {
		dst := filepath.Join(dataDir, filepath.FromSlash(f.Path))
		if sum, err := fileSHA256(dst); err == nil && sum == f.SHA256 {
			fmt.Fprintf(opt.Log, "%s: present, checksum ok\n", f.Path)
			continue
		}
		url := f.URL
		if opt.BaseURL != "" {
			url = strings.TrimSuffix(opt.BaseURL, "/") + "/" + strings.TrimPrefix(url, gh)
		}
		body, ok := archives[url]
		if !ok {
			var err error
			if body, err = download(ctx, opt.Client, url, opt.MaxBytes); err != nil {
				return fmt.Errorf("fetch %s: %w", name, err)
			}
			if f.Member != "" {
				archives[url] = body
			}
		}
		if f.Member != "" {
			var err error
			if body, err = zipMember(body, f.Member); err != nil {
				return fmt.Errorf("fetch %s: %s: %w", name, url, err)
			}
		}
		sum := sha256.Sum256(body)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 {
			return fmt.Errorf("fetch %s: %s: checksum %s, want %s: the source changed or the download is corrupt; nothing was written for this file", name, url, got, f.SHA256)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		err := atomicfile.Write(dst, func(w io.Writer) error {
			_, err := w.Write(body)
			return err
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(opt.Log, "%s: downloaded %d bytes, checksum ok\n", f.Path, len(body))
	}
	return nil
}

func download(ctx context.Context, c *http.Client, url string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("GET %s: larger than %d bytes", url, limit)
	}
	return body, nil
}

func zipMember(archive []byte, member string) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return nil, fmt.Errorf("not a zip archive: %w", err)
	}
	for _, zf := range zr.File {
		if path.Base(zf.Name) != member || strings.HasPrefix(zf.Name, "__MACOSX") {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(io.LimitReader(rc, 1<<30))
	}
	return nil, errors.New("archive has no member " + member)
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
