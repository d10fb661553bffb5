// Package docker holds no code: this folder keeps a container image (Dockerfile, compose.yaml) with the same
// pinned JupyterLab and kernel as `make lab`. See docker/README.md.
package docker
