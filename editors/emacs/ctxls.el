;;; ctxls.el --- Budgeted code context from the ctxls language server, through eglot  -*- lexical-binding: t -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: tools, languages
;; URL: https://github.com/ctxls/ctxls

;;; Commentary:

;; ctxls picks the code of a workspace a model should read for a question,
;; a cursor or a diff, within a token budget.  This package runs `ctxls
;; serve' through eglot and adds:
;;
;;   M-x ctxls-assemble       a question (pre-filled with the region); point or
;;                            the region is the focus.  From Lisp:
;;                            (ctxls-assemble "how are totals computed")
;;   M-x ctxls-assemble-diff  the context of the working tree's git diff
;;   M-x ctxls-expand         a handle the last context left out, in full
;;
;; The context is shown in the buffer *ctxls context* (Markdown) and put on
;; the kill ring.  `ctxls-eglot-register' makes ctxls the eglot server of
;; `ctxls-major-modes'; in other buffers the commands start ctxls as a
;; companion server of the project that manages no buffer (eglot allows one
;; server per buffer), so a language's own server stays in charge.
;; See editors/emacs/README.md.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'project)
(require 'jsonrpc)
(require 'eglot)

(defgroup ctxls nil
  "Budgeted code context from the ctxls language server."
  :group 'tools
  :prefix "ctxls-")

(defconst ctxls-install-command "go install ./cmd/ctxls"
  "How to build ctxls in a checkout of ctxls (needs Go, and gcc unless CGO_ENABLED=0).
A release archive (make dist) carries the binary instead.")

(defcustom ctxls-program "ctxls"
  "The ctxls binary: a name looked up in `exec-path', or a file name."
  :type 'string)

(defcustom ctxls-major-modes nil
  "Major modes whose buffers ctxls manages as their eglot server.
Takes effect through `ctxls-eglot-register'.  A mode listed here gets
ctxls instead of its language's server (eglot runs one server per
buffer); leave it empty to use ctxls only as a companion server."
  :type '(repeat symbol))

(defcustom ctxls-budget nil
  "Token budget of a context (nil: the server's default, 8000)."
  :type '(choice (const :tag "Server default" nil) integer))

(defcustom ctxls-per-file nil
  "Most tokens one file may take (nil: no cap)."
  :type '(choice (const nil) integer))

(defcustom ctxls-per-part nil
  "Most tokens one part may take (nil: no cap)."
  :type '(choice (const nil) integer))

(defcustom ctxls-encoding nil
  "Tokenizer that counts the budget: \"cl100k_base\", \"o200k_base\" or \"approx\"."
  :type '(choice (const nil) string))

(defcustom ctxls-format nil
  "Rendering of the context: \"markdown\" (default), \"xml\" or \"json\"."
  :type '(choice (const nil) string))

(defcustom ctxls-strategy nil
  "Order of the parts: \"grouped\", \"interleaved\" or \"score\"."
  :type '(choice (const nil) string))

(defcustom ctxls-changes-mode "review"
  "The mode of `ctxls-assemble-diff': \"review\" (the changed code whole,
its callers and the definitions it uses) or \"related\" (what else may
change with the changes; the changed code a signpost)."
  :type '(choice (const "review") (const "related")))

(defcustom ctxls-include nil
  "Only these paths (doublestar globs relative to the workspace root)."
  :type '(repeat string))

(defcustom ctxls-exclude nil
  "Paths never included (doublestar globs relative to the workspace root)."
  :type '(repeat string))

(defcustom ctxls-activity t
  "Whether this session's open buffers and edited lines count in retrieval.
nil sends the setting activity: false."
  :type 'boolean)

(defcustom ctxls-embeddings nil
  "The semantic channel: \"workspace\", \"endpoint\" or \"off\"; nil: the server's default.
\"endpoint\" asks the embeddings service of `ctxls-embeddings-endpoint' (the
indexed code is sent to it)."
  :type '(choice (const :tag "Server default" nil) (const "workspace") (const "endpoint") (const "off")))

(defcustom ctxls-embeddings-endpoint nil
  "The embeddings service of `ctxls-embeddings' \"endpoint\", a plist:
\(:url \"http://127.0.0.1:11434/v1\" :model \"nomic-embed-text\" :dimensions N
:key-env \"VAR\"), an OpenAI-compatible embeddings API.  :dimensions and
:key-env are optional; the key is read from the server's environment
variable named by :key-env, never from settings."
  :type '(choice (const :tag "None" nil) (plist :key-type symbol)))

(defcustom ctxls-request-timeout 60
  "Seconds to wait for the server's answer."
  :type 'number)

(defvar ctxls-last-result nil
  "The last context/assemble result (a plist): what `ctxls-expand' offers.")

(defconst ctxls-buffer-name "*ctxls context*")

;;;; The server

(defclass ctxls-server (eglot-lsp-server) ()
  :documentation "The ctxls language server (`ctxls serve').")

(defun ctxls--settings ()
  "The server settings of the ctxls-* options, as a plist (docs/protocol.md)."
  (let ((budget (append (and ctxls-budget (list :maxTokens ctxls-budget))
                        (and ctxls-per-file (list :perFileMaxTokens ctxls-per-file))
                        (and ctxls-per-part (list :perPartMaxTokens ctxls-per-part)))))
    (append (and budget (list :budget budget))
            (and ctxls-encoding (list :encoding ctxls-encoding))
            (and ctxls-format (list :format ctxls-format))
            (and ctxls-strategy (list :strategy ctxls-strategy))
            (and ctxls-include (list :include (vconcat ctxls-include)))
            (and ctxls-exclude (list :exclude (vconcat ctxls-exclude)))
            (and ctxls-embeddings (list :embeddings ctxls-embeddings))
            (and ctxls-embeddings-endpoint (list :embeddingsEndpoint (ctxls--endpoint-settings)))
            (and (not ctxls-activity) (list :activity :json-false)))))

(defun ctxls--endpoint-settings ()
  "The server's spelling of `ctxls-embeddings-endpoint' (a plist)."
  (let ((ep ctxls-embeddings-endpoint))
    (append (and (plist-get ep :url) (list :url (plist-get ep :url)))
            (and (plist-get ep :model) (list :model (plist-get ep :model)))
            (and (plist-get ep :dimensions) (list :dimensions (plist-get ep :dimensions)))
            (and (plist-get ep :key-env) (list :keyEnv (plist-get ep :key-env))))))

(cl-defmethod eglot-initialization-options ((_server ctxls-server))
  "The ctxls settings: the server reads them from initializationOptions."
  (or (ctxls--settings) (make-hash-table)))

(defun ctxls--program ()
  "The absolute file name of the ctxls binary, or signal a `user-error'."
  (or (and (file-name-absolute-p ctxls-program)
           (file-executable-p ctxls-program)
           (not (file-directory-p ctxls-program))
           ctxls-program)
      (and (not (file-name-absolute-p ctxls-program))
           (executable-find ctxls-program))
      (user-error "ctxls: the server binary %S was not found.  Unpack a release archive and put its ctxls on `exec-path', or build it in a checkout of ctxls with `%s' (needs Go, and gcc unless CGO_ENABLED=0), or set `ctxls-program' to its file name"
                  ctxls-program ctxls-install-command)))

(defun ctxls--eglot-contact (&optional _interactive)
  "The eglot contact of ctxls: its class and command line."
  (list 'ctxls-server (ctxls--program) "serve"))

;;;###autoload
(defun ctxls-eglot-register ()
  "Make ctxls the eglot server of the modes in `ctxls-major-modes'."
  (interactive)
  (setq eglot-server-programs
        (cl-remove-if (lambda (e) (eq (cdr-safe e) #'ctxls--eglot-contact)) eglot-server-programs))
  (when ctxls-major-modes
    (push (cons ctxls-major-modes #'ctxls--eglot-contact) eglot-server-programs)))

(defun ctxls--project ()
  "The current project, or signal a `user-error'."
  (or (project-current)
      (user-error "ctxls: %s is not in a project (a version-controlled directory)" default-directory)))

(defun ctxls--live-p (server)
  (and server (jsonrpc-running-p server)))

(defun ctxls--project-server (project)
  "A live ctxls server of PROJECT, or nil."
  (cl-find-if (lambda (s) (and (cl-typep s 'ctxls-server) (ctxls--live-p s)))
              (gethash project eglot--servers-by-project)))

(defun ctxls--connect (project modes)
  "Start ctxls for PROJECT managing the buffers of MODES (none: a companion)."
  (let* ((contact (cdr (ctxls--eglot-contact)))
         (ids (memq 'language-ids (help-function-arglist #'eglot--connect)))
         (lang (if ids (list "plaintext") "plaintext"))
         (eglot-sync-connect t))
    (eglot--connect modes project 'ctxls-server contact lang)
    (or (ctxls--project-server project)
        (user-error "ctxls: the server did not start (see the *EGLOT ... stderr* buffer)"))))

(defun ctxls-current-server ()
  "The ctxls server of the current buffer, started if needed.
The buffer's eglot server when it is ctxls; else a live ctxls server of
the project; else a new one, which manages the buffer when its mode is
in `ctxls-major-modes' and no buffer otherwise."
  (let ((own (ignore-errors (eglot-current-server))))
    (if (and (cl-typep own 'ctxls-server) (ctxls--live-p own))
        own
      (let ((project (ctxls--project)))
        (or (ctxls--project-server project)
            (ctxls--connect project (if (and (memq major-mode ctxls-major-modes) (not (ctxls--live-p own)))
                                        ctxls-major-modes
                                      nil)))))))

;;;; Requests

(defun ctxls--flush-changes (server)
  "Send the edits of SERVER's buffers that eglot has not sent yet.
eglot sends changes after an idle delay; a request must see them all."
  (dolist (buf (eglot--managed-buffers server))
    (when (buffer-live-p buf)
      (with-current-buffer buf
        (eglot--signal-textDocument/didChange)))))

(defun ctxls--request (server method params)
  "Send METHOD with PARAMS to SERVER; signal a `user-error' on an error answer."
  (ctxls--flush-changes server)
  (condition-case err
      (jsonrpc-request server method params :timeout ctxls-request-timeout)
    (jsonrpc-error
     (let* ((data (cdr err))
            (msg (or (alist-get 'jsonrpc-error-message data) (format "%S" data)))
            (edata (alist-get 'jsonrpc-error-data data))
            (field (and (listp edata) (plist-get edata :field))))
       (user-error "ctxls: %s%s" msg
                   (if (and (stringp field) (string-prefix-p "budget" field))
                       " (check `ctxls-budget')" ""))))))

(defun ctxls--focus (server pos)
  "The focus of a request: POS in the current buffer's file, or nil.
Nil when the buffer visits no file under SERVER's project root."
  (let ((root (expand-file-name (project-root (eglot--project server)))))
    (when (and buffer-file-name
               (file-in-directory-p (expand-file-name buffer-file-name) root))
      (list :uri (eglot--path-to-uri buffer-file-name)
            :position (eglot--pos-to-lsp-position pos)))))

(defun ctxls--flatten (text)
  "TEXT on one line (runs of white space made one space), at most 500 characters."
  (let ((flat (string-trim (replace-regexp-in-string "[ \t\n\r]+" " " text))))
    (if (> (length flat) 500) (substring flat 0 500) flat)))

(defun ctxls--count (n noun)
  "N NOUN, plural when N is not 1."
  (format "%s %s%s" n noun (if (eql n 1) "" "s")))

(defun ctxls--show (result what)
  "Show RESULT's rendered context in `ctxls-buffer-name' and put it on the kill ring.
WHAT names the result in the message.  Returns the rendered text."
  (let* ((text (plist-get result :rendered))
         (stats (plist-get result :stats))
         (omitted (plist-get result :omitted))
         (buf (get-buffer-create ctxls-buffer-name)))
    (if (zerop (length (plist-get result :parts)))
        (progn (message "ctxls: nothing in the workspace matched%s"
                        (if (plist-get stats :note) (format " (%s)" (plist-get stats :note)) ""))
               text)
      (with-current-buffer buf
        (let ((inhibit-read-only t))
          (erase-buffer)
          (insert text)
          (goto-char (point-min))
          (pcase ctxls-format
            ("json" (if (fboundp 'js-json-mode) (js-json-mode) (js-mode)))
            ("xml" (xml-mode))
            (_ (if (fboundp 'markdown-mode) (markdown-mode) (text-mode))))
          (setq buffer-read-only t)
          (let ((map (make-sparse-keymap)))
            (set-keymap-parent map (current-local-map))
            (define-key map (kbd "q") #'quit-window)
            (use-local-map map))))
      (display-buffer buf '((display-buffer-reuse-window display-buffer-pop-up-window)))
      (kill-new text)
      (message "ctxls: %s: %s/%s tokens, %s from %s, on the kill ring%s%s%s"
               what (plist-get stats :totalTokens) (plist-get stats :maxTokens)
               (ctxls--count (plist-get stats :parts) "part") (ctxls--count (plist-get stats :files) "file")
               (if (> (length omitted) 0)
                   (format "; %d left out (M-x ctxls-expand)" (length omitted)) "")
               (if (eq (plist-get stats :indexComplete) :json-false)
                   "; the index is still being built: the result may be partial" "")
               (if (plist-get stats :note) (concat "; " (plist-get stats :note)) ""))
      text)))

;;;; Commands

;;;###autoload
(defun ctxls-assemble (question &optional beg end)
  "Assemble the context for QUESTION and show it in a Markdown buffer.
The focus is the start of the region BEG..END when given, else point.
Interactively, QUESTION is read with the region's text as the initial
input, and the region is used when active.  From Lisp, the region is
used when it is active and BEG is not given.  The context is also put
on the kill ring; returns it as a string."
  (interactive
   (let* ((region (use-region-p))
          (b (and region (region-beginning)))
          (e (and region (region-end))))
     (list (read-string "ctxls question: " (and region (ctxls--flatten (buffer-substring-no-properties b e))))
           b e)))
  (when (and (null beg) (use-region-p))
    (setq beg (region-beginning) end (region-end)))
  (let* ((server (ctxls-current-server))
         (q (string-trim (or question "")))
         (q (if (and (string-empty-p q) beg end)
                (ctxls--flatten (buffer-substring-no-properties beg end))
              q))
         (focus (ctxls--focus server (or beg (point))))
         (params (append (and (not (string-empty-p q)) (list :query q))
                         (and focus (list :focus focus)))))
    (unless params
      (user-error "ctxls: give a question, or run it from a file of the project (point is the focus)"))
    (let ((result (ctxls--request server :context/assemble params)))
      (setq ctxls-last-result result)
      (ctxls--show result "context"))))

(defconst ctxls--empty-tree "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
  "Git's empty tree: the base before the first commit.")

(defun ctxls--git (dir &rest args)
  "Run git ARGS in DIR; return (STATUS . OUTPUT)."
  (with-temp-buffer
    (let* ((default-directory (file-name-as-directory dir))
           (status (apply #'process-file "git" nil t nil args)))
      (cons status (buffer-string)))))

(defun ctxls-working-tree-diff (dir)
  "`git diff --relative HEAD' in DIR (against the empty tree before a first commit)."
  (let ((base (if (eq 0 (car (ctxls--git dir "rev-parse" "--verify" "--quiet" "HEAD")))
                  "HEAD"
                (unless (eq 0 (car (ctxls--git dir "rev-parse" "--git-dir")))
                  (user-error "ctxls: %s is not in a git repository: no diff to send" dir))
                ctxls--empty-tree)))
    (pcase-let ((`(,status . ,out) (ctxls--git dir "-c" "core.quotepath=off" "diff" "--no-color"
                                               "--no-ext-diff" "--relative" base)))
      (unless (eq status 0) (user-error "ctxls: git diff failed: %s" (string-trim out)))
      out)))

;;;###autoload
(defun ctxls-assemble-diff ()
  "Assemble the context for the working tree's git diff (`git diff HEAD').
Shows it like `ctxls-assemble' and returns it, or nil when nothing changed."
  (interactive)
  (let* ((server (ctxls-current-server))
         (root (project-root (eglot--project server)))
         (diff (ctxls-working-tree-diff root)))
    (if (string-empty-p (string-trim diff))
        (progn (message "ctxls: the working tree has no changes (git diff HEAD is empty)") nil)
      (let ((result (ctxls--request server :context/assemble
                                    (list :diff diff
                                          :mode (if (equal ctxls-changes-mode "related") "related" "review")))))
        (setq ctxls-last-result result)
        (ctxls--show result "changes")))))

;;;###autoload
(defun ctxls-expand (handle)
  "Show HANDLE (e.g. \"index/walk.go#L5-60\") in full.
Interactively, HANDLE is read with completion over what the last
context left out."
  (interactive
   (list (completing-read "ctxls expand: "
                          (mapcar (lambda (o) (plist-get o :handle))
                                  (plist-get ctxls-last-result :omitted)))))
  (when (string-empty-p (string-trim handle)) (user-error "ctxls: no handle given"))
  (let* ((server (ctxls-current-server))
         (state (plist-get (plist-get ctxls-last-result :stats) :indexState))
         (params (append (list :handles (vector (string-trim handle)))
                         (and state (list :indexState state)))))
    (ctxls--show (ctxls--request server :context/expand params) (concat "expanded " handle))))

(provide 'ctxls)
;;; ctxls.el ends here
