// Package ollama reads Ollama's names and its local model store: a name
// such as llama3.2:3b or registry.ollama.ai/library/llama3.2:3b is parsed
// by Ollama's grammar (types/model/name.go), and a pulled model is found
// as Ollama lays it out (manifest/paths.go): the manifest at
// $OLLAMA_MODELS/manifests/HOST/NAMESPACE/MODEL/TAG names its layers, and
// the layer of type application/vnd.ollama.image.model is the GGUF file
// blobs/sha256-DIGEST.
//
// The store is read as untrusted input: a manifest is read within
// limits.OllamaManifestBytes, a digest must be a sha256 digest (so a
// manifest cannot point outside blobs/), and the blob must be a regular
// file inside the blobs directory once links are followed.
package ollama
