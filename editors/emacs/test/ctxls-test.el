;;; ctxls-test.el --- ctxls.el against the real `ctxls serve', in batch Emacs  -*- lexical-binding: t -*-

;; Run by scripts/editors-test.sh emacs:
;;   emacs --batch -L editors/emacs -l editors/emacs/test/ctxls-test.el
;; env: CTXLS_BIN (the binary), CTXLS_WS (a git checkout of the fixture workspace),
;;      CTXLS_CACHE_DIR (the server's index cache), CTXLS_CLI_CACHE (the reference CLI's).
;; Prints one line per check and "N passed, N failed"; exits 1 on any failure.
;; --batch without -Q: Debian's site-start puts elpa-eglot on the load path.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(setq locale-coding-system 'utf-8-unix)
(prefer-coding-system 'utf-8-unix)
(require 'ctxls)

(defvar ctxls-test-bin (getenv "CTXLS_BIN"))
(defvar ctxls-test-ws (file-name-as-directory (getenv "CTXLS_WS")))
(defconst ctxls-test-question "how is the tax computed at checkout")
(defconst ctxls-test-budget 300)
(defvar ctxls-test-passed 0)
(defvar ctxls-test-failed 0)

(defun ctxls-test-out (fmt &rest args)
  (send-string-to-terminal (concat (apply #'format fmt args) "\n")))

(defun ctxls-test-check (cond what &optional detail)
  (if cond
      (progn (cl-incf ctxls-test-passed) (ctxls-test-out "ok   %s" what))
    (cl-incf ctxls-test-failed)
    (ctxls-test-out "FAIL %s%s" what (if detail (format "\n     %s" detail) "")))
  cond)

(defun ctxls-test-cli (&rest args)
  "The reference: `ctxls assemble' on the workspace, with its own cache."
  (with-temp-buffer
    (let* ((process-environment (cons (concat "CTXLS_CACHE_DIR=" (getenv "CTXLS_CLI_CACHE")) process-environment))
           (status (apply #'call-process ctxls-test-bin nil '(t nil) nil "assemble" "--root" ctxls-test-ws args)))
      (unless (eq status 0) (error "ctxls assemble failed (%s): %s" status (buffer-string)))
      (buffer-string))))

(defun ctxls-test-context ()
  (when (get-buffer ctxls-buffer-name)
    (with-current-buffer ctxls-buffer-name (buffer-substring-no-properties (point-min) (point-max)))))

(defun ctxls-test-error-message (thunk)
  "The message of the error THUNK signals, or nil."
  (condition-case err (progn (funcall thunk) nil)
    (error (error-message-string err))))

(defun ctxls-test-visit (rel)
  (find-file (expand-file-name rel ctxls-test-ws))
  (current-buffer))

(define-derived-mode ctxls-test-go-mode prog-mode "Go(test)" "Stands in for go-mode.")
(add-to-list 'auto-mode-alist '("\\.go\\'" . ctxls-test-go-mode))

(defun ctxls-test-main ()
  (setq eglot-events-buffer-size 0
        eglot-autoreconnect nil
        eglot-connect-timeout 30)

  ;; 1. A missing binary: a clear error naming the install command.
  (let ((ctxls-program "/nonexistent/ctxls"))
    (ctxls-test-visit "pricing/tax.go")
    (let ((msg (ctxls-test-error-message (lambda () (ctxls-assemble "q")))))
      (ctxls-test-check (and msg (string-match-p (regexp-quote ctxls-install-command) msg))
                        "missing binary: an error naming the install command" msg))
    (ctxls-test-check (null (ctxls--project-server (project-current))) "missing binary: no server"))

  ;; The settings object: the endpoint's plist in the server's spelling.
  (let ((ctxls-embeddings "endpoint")
        (ctxls-embeddings-endpoint '(:url "http://127.0.0.1:11434/v1" :model "nomic-embed-text" :key-env "EMBED_KEY")))
    (ctxls-test-check (equal (ctxls--settings)
                             '(:embeddings "endpoint"
                               :embeddingsEndpoint (:url "http://127.0.0.1:11434/v1" :model "nomic-embed-text" :keyEnv "EMBED_KEY")))
                      "settings: the embeddings endpoint in the server's spelling" (format "%S" (ctxls--settings))))

  ;; 2. ctxls as the eglot server of a mode: M-x eglot in a .go buffer.
  ;; ctxls-activity nil: the contexts are compared with the CLI's, which
  ;; has no editor session (the activity has its own tests).
  (setq ctxls-program ctxls-test-bin
        ctxls-activity nil
        ctxls-budget ctxls-test-budget
        ctxls-major-modes '(ctxls-test-go-mode))
  (ctxls-eglot-register)
  (let ((tax (ctxls-test-visit "pricing/tax.go")))
    (with-current-buffer tax
      (let ((eglot-sync-connect t)) (call-interactively #'eglot))
      (ctxls-test-check (cl-typep (eglot-current-server) 'ctxls-server) "M-x eglot starts ctxls for the registered mode")
      (ctxls-test-check (bound-and-true-p eglot--managed-mode) "eglot manages the buffer")
      (ctxls-test-check (equal (plist-get (eglot--server-info (eglot-current-server)) :name) "ctxls")
                        "serverInfo names ctxls")

      ;; 3. (ctxls-assemble QUESTION) with point as the focus.
      (goto-char (point-min)) (forward-line 20) (forward-char 5) ; line 21, on "Tax"
      (let* ((ret (ctxls-assemble ctxls-test-question))
             (want (ctxls-test-cli "--query" ctxls-test-question "--focus" "pricing/tax.go:21:6"
                                   "--budget" (number-to-string ctxls-test-budget)))
             (got (ctxls-test-context))
             (stats (plist-get ctxls-last-result :stats)))
        (ctxls-test-check (equal got want) "ctxls-assemble: the buffer is the server's context (same as ctxls assemble)"
                          (format "got:\n%s\nwant:\n%s" got want))
        (ctxls-test-check (equal ret got) "ctxls-assemble returns the context")
        (ctxls-test-check (and got (string-match-p (regexp-quote "func Tax(region string, cents int64) int64 {") got))
                          "the context holds pricing.Tax")
        ;; What the budget leaves out: pricing.Format's body (at most its
        ;; signature fits), which a larger budget shows.
        (ctxls-test-check (not (string-match-p (regexp-quote "return fmt.Sprintf(\"%d.%02d\"") (or got "")))
                          "pricing.Format's body does not fit in the budget")
        (ctxls-test-check (string-match-p (regexp-quote "return fmt.Sprintf(\"%d.%02d\"")
                                          (ctxls-test-cli "--query" ctxls-test-question "--focus" "pricing/tax.go:21:6" "--budget" "4000"))
                          "a larger budget shows it (the budget is what left it out)")
        (ctxls-test-check (and (eql (plist-get stats :maxTokens) ctxls-test-budget)
                               (<= (plist-get stats :totalTokens) ctxls-test-budget))
                          "the budget of `ctxls-budget' is the one the server used, and respected" (format "%S" stats))
        (ctxls-test-check (equal (current-kill 0) want) "the context is on the kill ring")
        (ctxls-test-check (with-current-buffer ctxls-buffer-name
                            (and buffer-read-only (derived-mode-p (if (fboundp 'markdown-mode) 'markdown-mode 'text-mode))))
                          "a read-only Markdown (or text) buffer")
        (ctxls-test-check (get-buffer-window ctxls-buffer-name) "the buffer is displayed"))))

  ;; 4. The region: the prompt is pre-filled with its text, its start is the focus.
  (with-current-buffer (ctxls-test-visit "cart/cart.go")
    (transient-mark-mode 1)
    (goto-char (point-min)) (forward-line 44)
    (push-mark (point) t t)
    (forward-line 2) (end-of-line)
    (let* ((offered nil)
           (selected "func (c *Cart) Total() int64 { sub := c.Subtotal() return sub + pricing.Tax(c.Region, sub)")
           (want (ctxls-test-cli "--query" selected "--focus" "cart/cart.go:45:1"
                                 "--budget" (number-to-string ctxls-test-budget))))
      (cl-letf (((symbol-function 'read-string)
                 (lambda (_prompt &optional initial &rest _) (setq offered initial) initial)))
        (call-interactively #'ctxls-assemble))
      (ctxls-test-check (equal offered selected) "M-x ctxls-assemble: the prompt is pre-filled with the region" offered)
      (ctxls-test-check (equal (ctxls-test-context) want) "region: the question is its text, the focus its start"
                        (format "got:\n%s\nwant:\n%s" (ctxls-test-context) want))
      (ctxls-test-check (cl-some (lambda (p)
                                   (and (equal (plist-get p :path) "cart/cart.go")
                                        (cl-some (lambda (g) (<= (plist-get g :start) 45 (plist-get g :end)))
                                                 (plist-get p :ranges))))
                                 (plist-get ctxls-last-result :parts))
                        "region: a part covers its first line, 45"))
    (deactivate-mark))

  ;; 5. ctxls-expand: an omitted handle in full.
  (let* ((om (aref (plist-get ctxls-last-result :omitted) 0))
         (handle (plist-get om :handle))
         (range (aref (plist-get om :ranges) 0))
         (lines (with-temp-buffer
                  (insert-file-contents (expand-file-name (plist-get om :path) ctxls-test-ws))
                  (split-string (buffer-string) "\n")))
         (offered nil))
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt collection &rest _) (setq offered collection) handle)))
      (call-interactively #'ctxls-expand))
    (ctxls-test-check (equal offered (mapcar (lambda (o) (plist-get o :handle)) (plist-get ctxls-last-result :omitted)))
                      "M-x ctxls-expand offers the last context's omitted handles")
    (let ((got (or (ctxls-test-context) "")))
      (ctxls-test-check
       (cl-every (lambda (l) (or (string-empty-p (string-trim l)) (string-match-p (regexp-quote l) got)))
                 (cl-subseq lines (1- (plist-get range :start)) (plist-get range :end)))
       (format "ctxls-expand %s: the buffer holds those lines" handle) got)
      (ctxls-test-check (equal (current-kill 0) got) "ctxls-expand: on the kill ring")))

  ;; 6. An error answer: a user-error with the server's message, the buffer unchanged.
  (let* ((before (ctxls-test-context))
         (msg (ctxls-test-error-message (lambda () (ctxls-expand "nowhere/missing.go#L1-2")))))
    (ctxls-test-check (and msg (string-prefix-p "ctxls: " msg)) "a bad handle: an error message" msg)
    (ctxls-test-check (equal (ctxls-test-context) before) "a bad handle: the buffer is unchanged"))

  ;; 7. ctxls-assemble-diff after an edit saved from Emacs.
  (with-current-buffer (ctxls-test-visit "textutil/text.go")
    (ctxls-test-check (null (ctxls-assemble-diff)) "no changes: nothing sent")
    (goto-char (point-min))
    (search-forward "strings.Join(lines, \"\\n\")")
    (replace-match "strings.Join(lines, \"\\r\\n\")" t t)
    (save-buffer)
    (let ((got (ctxls-assemble-diff))
          (want (ctxls-test-cli "--diff" "HEAD" "--budget" (number-to-string ctxls-test-budget) "--mode" "review")))
      (ctxls-test-check (equal got want) "ctxls-assemble-diff: the context of the working-tree diff in the review mode (same as ctxls assemble --diff HEAD --mode review)"
                        (format "got:\n%s\nwant:\n%s" got want))
      (ctxls-test-check (string-match-p (regexp-quote "textutil.JoinLines(") (or got ""))
                        "the diff context holds the changed function's caller"))
    (let* ((ctxls-changes-mode "related")
           (got (ctxls-assemble-diff))
           (want (ctxls-test-cli "--diff" "HEAD" "--budget" (number-to-string ctxls-test-budget) "--mode" "related")))
      (ctxls-test-check (equal got want) "ctxls-changes-mode related: the related mode's context (same as ctxls assemble --diff HEAD --mode related)"
                        (format "got:\n%s\nwant:\n%s" got want))))

  ;; 8. Unsaved buffers count: a new file that exists only in Emacs.
  (with-current-buffer (ctxls-test-visit "pricing/surcharge.go")
    (insert "package pricing\n\n// Surcharge is the holiday surcharge added at checkout: 2%.\n"
            "func Surcharge(cents int64) int64 { return cents / 50 }\n")
    (let ((got (ctxls-assemble "holiday surcharge")))
      (ctxls-test-check (string-match-p (regexp-quote "func Surcharge(cents int64) int64") (or got ""))
                        "unsaved buffer: its text is in the context" got))
    (ctxls-test-check (not (file-exists-p (expand-file-name "pricing/surcharge.go" ctxls-test-ws)))
                      "unsaved buffer: not on disk")
    (set-buffer-modified-p nil)
    (kill-buffer))

  ;; 9. A companion server: with no ctxls server, a buffer of another mode
  ;; gets one that manages no buffer (its own language server stays).
  (let ((old (ctxls--project-server (project-current))))
    (let ((eglot-autoshutdown nil)) (eglot-shutdown old))
    (ctxls-test-check (not (jsonrpc-running-p old)) "the first server shut down"))
  (with-current-buffer (ctxls-test-visit "README.md")
    (ctxls-test-check (not (memq major-mode ctxls-major-modes)) "README.md is not in a ctxls mode" major-mode)
    (let ((got (ctxls-assemble ctxls-test-question))
          (want (ctxls-test-cli "--query" ctxls-test-question "--focus" "README.md:1:1"
                                "--budget" (number-to-string ctxls-test-budget))))
      (ctxls-test-check (equal got want) "companion server: the context of a question, point in README.md the focus"
                        (format "got:\n%s\nwant:\n%s" got want)))
    (ctxls-test-check (not (bound-and-true-p eglot--managed-mode)) "companion server: README.md is not managed by it")
    (let ((s (ctxls--project-server (project-current))))
      (ctxls-test-check (and s (null (eglot--major-modes s))) "companion server: it manages no mode"))))

(let ((rc 0))
  (condition-case err
      (ctxls-test-main)
    (error (ctxls-test-check nil "the test ran to the end" (error-message-string err))))
  (dolist (s (hash-table-values eglot--servers-by-project))
    (dolist (server s) (ignore-errors (eglot-shutdown server))))
  (ctxls-test-out "%d passed, %d failed" ctxls-test-passed ctxls-test-failed)
  (when (> ctxls-test-failed 0) (setq rc 1))
  (kill-emacs rc))

;;; ctxls-test.el ends here
