-- ctxls for Neovim: starts `ctxls serve` for the buffers of a workspace and
-- assembles context with :CtxlsAssemble, :CtxlsAssembleDiff and :CtxlsExpand.
--
-- Works on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client) and
-- newer (vim.lsp.start from 0.8; client:request method calls from 0.11).
-- See editors/nvim/README.md.
local M = {}

local uv = vim.uv or vim.loop
local has = function(v)
  return vim.fn.has('nvim-' .. v) == 1
end

-- How to get the server until ctxls is published: built in a checkout of
-- ctxls (make dist also packs release archives that carry it).
M.INSTALL = 'go install ./cmd/ctxls'

local defaults = {
  -- The server command line.
  cmd = { 'ctxls', 'serve' },
  -- Server settings (nil: the server's default). docs/protocol.md, Settings.
  budget = nil, -- budget.maxTokens (server default 8000)
  per_file = nil, -- budget.perFileMaxTokens
  per_part = nil, -- budget.perPartMaxTokens
  encoding = nil, -- cl100k_base | o200k_base | approx
  format = nil, -- markdown | xml | json
  strategy = nil, -- grouped | interleaved | score
  include = nil, -- list of globs
  exclude = nil, -- list of globs
  git_history = nil, -- false: leave the workspace's git history out
  embeddings = nil, -- workspace | endpoint | off (the semantic channel)
  -- With embeddings = 'endpoint': { url = ..., model = ..., dimensions = n, key_env = 'VAR' }
  -- (an OpenAI-compatible embeddings API; the key is read from the server's environment).
  embeddings_endpoint = nil,
  activity = nil, -- false: leave this session's open buffers and edits out
  -- The mode of :CtxlsAssembleDiff: 'review' (the changed code whole, its callers and the
  -- definitions it uses) or 'related' (what else may change with it; the changed code a signpost).
  changes_mode = 'review',
  -- Register the context is put in (nil: "+" when a clipboard is available, else the unnamed register).
  register = nil,
  -- How the context buffer is shown: "vsplit", "split", "tab" or "current".
  open = 'vsplit',
  -- Files or directories that mark a workspace root, searched upwards from a buffer.
  root_markers = { '.git', 'go.mod', 'package.json', 'Cargo.toml', 'pyproject.toml', '.ctxlsignore' },
  -- Filetypes to attach to (nil: every file buffer).
  filetypes = nil,
  -- Start the server when a file of a workspace is opened.
  autostart = true,
}

M.config = vim.deepcopy(defaults)

-- Per-client state: progress, messages, server info. Keyed by client id.
local state = {}
-- The last context/assemble result (what :CtxlsExpand offers) and a counter
-- of answered requests (tests and scripts wait on it).
M.last = nil
M.answered = 0

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'ctxls' })
end

-- settings returns the server settings object of the config (docs/protocol.md).
function M.settings(cfg)
  cfg = cfg or M.config
  local s = {}
  local budget = {}
  if cfg.budget then budget.maxTokens = cfg.budget end
  if cfg.per_file then budget.perFileMaxTokens = cfg.per_file end
  if cfg.per_part then budget.perPartMaxTokens = cfg.per_part end
  if next(budget) then s.budget = budget end
  for _, k in ipairs({ 'encoding', 'format', 'strategy', 'include', 'exclude', 'embeddings', 'activity' }) do
    if cfg[k] ~= nil then s[k] = cfg[k] end
  end
  if cfg.git_history ~= nil then s.gitHistory = cfg.git_history end
  local ep = cfg.embeddings_endpoint
  if type(ep) == 'table' then
    s.embeddingsEndpoint = { url = ep.url, model = ep.model, dimensions = ep.dimensions, keyEnv = ep.key_env }
  end
  -- An empty Lua table is encoded as the JSON array []: the server takes
  -- only an object (a default setup{} had its settings refused).
  if next(s) == nil then return vim.empty_dict() end
  return s
end

-- utf16_col converts a 0-based byte column of LINE into UTF-16 code units
-- (the protocol's position encoding). Works on every Neovim version.
function M.utf16_col(line, byte_col)
  local units, i = 0, 1
  local stop = math.min(byte_col, #line)
  while i <= stop do
    local b = line:byte(i)
    local len = b >= 0xF0 and 4 or b >= 0xE0 and 3 or b >= 0xC0 and 2 or 1
    units = units + (len == 4 and 2 or 1)
    i = i + len
  end
  return units
end

local function is_dir(p)
  local st = uv.fs_stat(p)
  return st ~= nil and st.type == 'directory'
end

local function exists(p)
  return uv.fs_stat(p) ~= nil
end

-- root_of returns the workspace root of PATH: the nearest directory above it
-- holding one of the root markers, else the current directory when PATH is
-- below it, else nil.
function M.root_of(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local home = uv.os_homedir()
  local d = dir
  while d and d ~= '' do
    if d ~= home then
      for _, m in ipairs(M.config.root_markers) do
        if exists(d .. '/' .. m) then return d end
      end
    end
    local parent = vim.fn.fnamemodify(d, ':h')
    if parent == d then break end
    d = parent
  end
  local cwd = vim.fn.getcwd()
  if dir == cwd or dir:sub(1, #cwd + 1) == cwd .. '/' then return cwd end
  return nil
end

local function get_client(id)
  return vim.lsp.get_client_by_id(id)
end

local function all_clients()
  local list = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
  local out = {}
  for _, c in ipairs(list) do
    if c.name == 'ctxls' then table.insert(out, c) end
  end
  return out
end
M.clients = all_clients

-- request sends METHOD with PARAMS through CLIENT (dot calls before 0.11, method calls after).
local function request(client, method, params, handler, bufnr)
  if has('0.11') then return client:request(method, params, handler, bufnr) end
  return client.request(method, params, handler, bufnr)
end

local function request_sync(client, method, params, timeout, bufnr)
  if has('0.11') then return client:request_sync(method, params, timeout, bufnr) end
  return client.request_sync(method, params, timeout, bufnr)
end
M.request_sync = request_sync

local function client_config(root)
  local settings = M.settings()
  local function progress_handler(err, result, ctx, config)
    local st = state[ctx.client_id]
    if st and result and result.value then
      local v, token = result.value, tostring(result.token)
      if v.kind == 'begin' then
        st.tasks[token] = { title = v.title, message = v.message, percentage = v.percentage }
      elseif v.kind == 'report' then
        local t = st.tasks[token] or {}
        t.message = v.message or t.message
        t.percentage = v.percentage or t.percentage
        st.tasks[token] = t
      elseif v.kind == 'end' then
        local t = st.tasks[token] or {}
        st.tasks[token] = nil
        st.done = (t.title or 'Indexing') .. ': ' .. (v.message or 'done')
      end
    end
    local default = vim.lsp.handlers['$/progress']
    if default then return default(err, result, ctx, config) end
  end
  local function log_handler(err, result, ctx, config)
    local st = state[ctx.client_id]
    if st and result and result.message then
      table.insert(st.log, result.message)
      if #st.log > 50 then table.remove(st.log, 1) end
    end
    local default = vim.lsp.handlers['window/logMessage']
    if default then return default(err, result, ctx, config) end
  end
  return {
    name = 'ctxls',
    cmd = M.config.cmd,
    cmd_cwd = root,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    init_options = settings,
    -- Answers the server's workspace/configuration pull (section "ctxls").
    settings = { ctxls = settings },
    handlers = { ['$/progress'] = progress_handler, ['window/logMessage'] = log_handler },
    on_init = function(client, result)
      state[client.id] = state[client.id] or { tasks = {}, log = {} }
      state[client.id].root = root
      state[client.id].server_info = result and result.serverInfo
      local caps = result and result.capabilities and result.capabilities.experimental
      state[client.id].assemble_version = caps and caps.contextAssemble and caps.contextAssemble.version
    end,
    on_exit = function(code, signal, client_id)
      local st = state[client_id]
      if st then st.exit = { code = code, signal = signal } end
    end,
  }
end

local by_root = {} -- root -> client id (0.7 path)

local function binary_missing()
  local bin = M.config.cmd[1]
  if vim.fn.executable(bin) == 1 then return nil end
  return string.format('ctxls: the server binary %q was not found. Unpack a release archive and put its ctxls on PATH, or build it in a checkout of ctxls with `%s` (needs Go, and gcc unless CGO_ENABLED=0), '
    .. 'or pass its path: require("ctxls").setup{ cmd = { "/path/to/ctxls", "serve" } }.', bin, M.INSTALL)
end

local warned_missing = false

-- attach starts (or reuses) the server of BUFNR's workspace and attaches the
-- buffer. Returns the client id, or nil when the buffer is not a file of a
-- workspace or the binary is missing.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.bo[bufnr].buftype ~= '' then return nil end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then return nil end
  if M.config.filetypes and not vim.tbl_contains(M.config.filetypes, vim.bo[bufnr].filetype) then return nil end
  local root = M.root_of(name)
  if not root or not is_dir(root) then return nil end
  local missing = binary_missing()
  if missing then
    if not warned_missing then notify(missing, vim.log.levels.ERROR) end
    warned_missing = true
    return nil
  end
  local id
  if vim.lsp.start then
    id = vim.lsp.start(client_config(root), { bufnr = bufnr })
  else
    id = by_root[root]
    local c = id and get_client(id)
    if not c or c.is_stopped() then
      id = vim.lsp.start_client(client_config(root))
      by_root[root] = id
    end
    if id then vim.lsp.buf_attach_client(bufnr, id) end
  end
  if id then
    state[id] = state[id] or { tasks = {}, log = {} }
    state[id].root = root
  end
  return id
end

-- client_for picks the ctxls client for BUFNR: the one attached to it, else
-- the one whose root holds the current directory, else the only one.
function M.client_for(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local clients = all_clients()
  for _, c in ipairs(clients) do
    if vim.lsp.buf_is_attached(bufnr, c.id) then return c end
  end
  local cwd = vim.fn.getcwd()
  for _, c in ipairs(clients) do
    local root = c.config.root_dir
    if root and (cwd == root or cwd:sub(1, #root + 1) == root .. '/') then return c end
  end
  if #clients == 1 then return clients[1] end
  return nil
end

-- status returns what is known of CLIENT's server: root, version, indexing tasks, log.
function M.status(client)
  return client and state[client.id] or nil
end

-- The context buffer ---------------------------------------------------------

local function context_buffer()
  local name = 'ctxls://context'
  local buf = vim.fn.bufnr(name)
  if buf == -1 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  return buf
end

local function show(text, format)
  local buf = context_buffer()
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then table.remove(lines) end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = (format == 'xml' and 'xml') or (format == 'json' and 'json') or 'markdown'
  if vim.fn.bufwinid(buf) == -1 then
    local how = M.config.open
    if how == 'split' then vim.cmd('split')
    elseif how == 'tab' then vim.cmd('tabnew')
    elseif how ~= 'current' then vim.cmd('vsplit') end
    vim.api.nvim_win_set_buf(0, buf)
  end
  return buf
end

local function register()
  if M.config.register then return M.config.register end
  return vim.fn.has('clipboard') == 1 and '+' or '"'
end

local function summary(r, what)
  local s = r.stats or {}
  local msg = string.format('ctxls: %s: %d/%d tokens, %d parts from %d files, in register %s', what,
    s.totalTokens or 0, s.maxTokens or 0, s.parts or 0, s.files or 0, register())
  if r.omitted and #r.omitted > 0 then msg = msg .. string.format('; %d left out (:CtxlsExpand)', #r.omitted) end
  if s.indexComplete == false then msg = msg .. '; the index is still being built: the result may be partial' end
  if s.note then msg = msg .. '; ' .. s.note end
  return msg
end

-- handle_result shows a context/assemble or context/expand answer.
local function handle_result(method, what, done)
  return function(err, result)
    M.answered = M.answered + 1
    if err then
      local msg = 'ctxls: ' .. tostring(err.message or err)
      if type(err.data) == 'table' and type(err.data.field) == 'string'
        and err.data.field:match('^budget') then
        msg = msg .. ' (check the budget in require("ctxls").setup{})'
      end
      if err.code ~= -32800 then notify(msg, vim.log.levels.ERROR) end
      if done then done(err, nil) end
      return
    end
    if method == 'context/assemble' then M.last = result end
    if not result.parts or #result.parts == 0 then
      notify('ctxls: nothing in the workspace matched' .. (result.stats and result.stats.note and (' (' .. result.stats.note .. ')') or ''),
        vim.log.levels.WARN)
    else
      show(result.rendered, M.config.format)
      vim.fn.setreg(register(), result.rendered)
      notify(summary(result, what))
    end
    if done then done(nil, result) end
  end
end

local function need_client(bufnr)
  local c = M.client_for(bufnr)
  if not c then
    notify('ctxls: no server for this buffer: open a file of a workspace first (see :checkhealth ctxls)', vim.log.levels.ERROR)
  end
  return c
end

-- focus returns the focus of a request from BUFNR: position POS ({row, col},
-- 1-based row, 0-based byte col) in the buffer's file, or nil when the buffer
-- is not a file of CLIENT's workspace.
local function focus(client, bufnr, pos)
  if not vim.lsp.buf_is_attached(bufnr, client.id) then return nil end
  local line = vim.api.nvim_buf_get_lines(bufnr, pos[1] - 1, pos[1], false)[1] or ''
  return {
    uri = vim.uri_from_bufnr(bufnr),
    position = { line = pos[1] - 1, character = M.utf16_col(line, pos[2]) },
  }
end

-- assemble sends context/assemble with QUESTION and the focus of the current
-- buffer: the start of the range LINE1..LINE2 when given (a visual
-- selection), else the cursor. DONE(err, result) is called with the answer.
function M.assemble(question, range, done)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = need_client(bufnr)
  if not client then return end
  local pos, selected
  if range then
    local s, e = vim.api.nvim_buf_get_mark(bufnr, '<'), vim.api.nvim_buf_get_mark(bufnr, '>')
    if s[1] == range[1] and e[1] == range[2] then
      pos = { s[1], s[2] }
      local lines = vim.api.nvim_buf_get_lines(bufnr, s[1] - 1, e[1], false)
      -- A characterwise selection is cut at its columns; a linewise one
      -- (V) takes whole lines (Neovim 0.7 reports column 0 for its end).
      if #lines > 0 and vim.fn.visualmode() ~= 'V' then
        lines[#lines] = lines[#lines]:sub(1, e[2] + 1)
        lines[1] = lines[1]:sub(s[2] + 1)
      end
      selected = table.concat(lines, '\n')
    else
      pos = { range[1], 0 }
      selected = table.concat(vim.api.nvim_buf_get_lines(bufnr, range[1] - 1, range[2], false), '\n')
    end
  else
    pos = vim.api.nvim_win_get_cursor(0)
  end
  local params = {}
  question = vim.trim(question or '')
  if question == '' and selected then question = vim.trim((selected:gsub('%s+', ' '))):sub(1, 500) end
  if question ~= '' then params.query = question end
  params.focus = focus(client, bufnr, pos)
  if not params.query and not params.focus then
    notify('ctxls: give a question (:CtxlsAssemble how are totals computed), or run it from a file of the workspace',
      vim.log.levels.ERROR)
    return
  end
  request(client, 'context/assemble', params, handle_result('context/assemble', 'context', done), bufnr)
end

-- diff returns `git diff --relative HEAD` in ROOT (against the empty tree
-- before the first commit), or nil and an error message.
function M.diff(root)
  local base = 'HEAD'
  vim.fn.system({ 'git', '-C', root, 'rev-parse', '--verify', '--quiet', 'HEAD' })
  if vim.v.shell_error ~= 0 then
    vim.fn.system({ 'git', '-C', root, 'rev-parse', '--git-dir' })
    if vim.v.shell_error ~= 0 then return nil, 'ctxls: ' .. root .. ' is not in a git repository: no diff to send' end
    base = '4b825dc642cb6eb9a060e54bf8d69288fbee4904' -- the empty tree
  end
  local out = vim.fn.system({ 'git', '-C', root, '-c', 'core.quotepath=off', 'diff', '--no-color', '--no-ext-diff',
    '--relative', base })
  if vim.v.shell_error ~= 0 then return nil, 'ctxls: git diff failed: ' .. out end
  return out
end

-- assemble_diff sends the working tree's diff of the current workspace.
function M.assemble_diff(done)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = need_client(bufnr)
  if not client then return end
  local text, err = M.diff(client.config.root_dir)
  if not text then
    notify(err, vim.log.levels.ERROR)
    return
  end
  if vim.trim(text) == '' then
    notify('ctxls: the working tree has no changes (git diff HEAD is empty)')
    return
  end
  local mode = M.config.changes_mode
  if mode ~= 'related' then mode = 'review' end
  request(client, 'context/assemble', { diff = text, mode = mode }, handle_result('context/assemble', 'changes', done), bufnr)
end

-- expand sends context/expand for HANDLE (from the last result's omitted
-- list when nil: the user picks one).
function M.expand(handle, done)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = need_client(bufnr)
  if not client then return end
  local function send(h)
    if not h or vim.trim(h) == '' then return end
    local params = { handles = { vim.trim(h) } }
    if M.last and M.last.stats then params.indexState = M.last.stats.indexState end
    request(client, 'context/expand', params, handle_result('context/expand', 'expanded ' .. h, done), bufnr)
  end
  if handle and handle ~= '' then return send(handle) end
  local omitted = M.expandable()
  if #omitted == 0 then
    notify('ctxls: nothing to expand: give a handle (:CtxlsExpand path#L5-60) or run :CtxlsAssemble first',
      vim.log.levels.WARN)
    return
  end
  vim.ui.select(omitted, { prompt = 'ctxls: expand', format_item = M.describe_omitted },
    function(o) if o then send(o.handle) end end)
end

-- expandable is the last result's omitted candidates worth expanding, best
-- first: a duplicate of a part already shown is left out.
function M.expandable()
  local out = {}
  for _, o in ipairs(M.last and M.last.omitted or {}) do
    if not (o.reason or ''):match('^duplicate') then table.insert(out, o) end
  end
  return out
end

-- describe_omitted says what an omitted candidate is: its symbol (or
-- "lines"), its file and lines, its cost and why it was left out.
function M.describe_omitted(o)
  local lines = {}
  for _, r in ipairs(o.ranges or {}) do
    table.insert(lines, r.start == r['end'] and tostring(r.start) or (r.start .. '-' .. r['end']))
  end
  local where = o.path .. (#lines > 0 and (':' .. table.concat(lines, ',')) or '')
  local what = (o.symbol and o.symbol ~= '') and o.symbol or 'lines'
  local cost = (o.tokens or 0) > 0 and string.format('%d tokens', o.tokens) or 'not counted'
  return string.format('%s  %s  (%s, %s)', what, where, cost, o.reason or 'left out')
end

local function complete_handles(arglead)
  local out = {}
  for _, o in ipairs(M.last and M.last.omitted or {}) do
    if o.handle:sub(1, #arglead) == arglead then table.insert(out, o.handle) end
  end
  return out
end

-- setup configures the plugin, defines its commands and, with autostart,
-- starts the server for file buffers of a workspace (those open now too).
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if type(M.config.cmd) == 'string' then M.config.cmd = { M.config.cmd, 'serve' } end
  local cmd = vim.api.nvim_create_user_command
  cmd('CtxlsAssemble', function(a)
    M.assemble(a.args, a.range > 0 and { a.line1, a.line2 } or nil)
  end, { nargs = '*', range = true, desc = 'ctxls: assemble context for a question (the cursor or selection is the focus)' })
  cmd('CtxlsAssembleDiff', function() M.assemble_diff() end, { nargs = 0, desc = 'ctxls: assemble context for the working tree diff' })
  cmd('CtxlsExpand', function(a) M.expand(a.args) end,
    { nargs = '?', complete = complete_handles, desc = 'ctxls: expand an omitted handle of the last context' })
  if M.config.autostart then
    local group = vim.api.nvim_create_augroup('ctxls', { clear = true })
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
      group = group,
      callback = function(ev) M.attach(ev.buf) end,
    })
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then M.attach(b) end
    end
  end
end

return M
