// Package docker holds no code: this folder keeps the JupyterLab image (Dockerfile, compose.yaml) for users
// who want JupyterLab rather than the classic Notebook Debian ships. See docker/README.md.
package docker
