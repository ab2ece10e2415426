-- Headless test of the ctxls Neovim plugin against the real `ctxls serve`.
-- Run by editors/nvim/test/run.sh:
--   nvim --headless -u NONE -i NONE -n --cmd 'set rtp^=editors/nvim' -c 'luafile editors/nvim/test/test.lua'
-- env: CTXLS_BIN (the binary), CTXLS_WS (a git checkout of the fixture workspace),
--      CTXLS_CACHE_DIR (the server's index cache), CTXLS_CLI_CACHE (the reference CLI's).
-- Prints one line per check and "N passed, N failed"; exits 1 on any failure.
local bin, ws = os.getenv('CTXLS_BIN'), os.getenv('CTXLS_WS')
local passed, failed = 0, 0
local QUESTION = 'how is the tax computed at checkout'
local BUDGET = 300

local function out(s) io.stdout:write(s .. '\n') io.stdout:flush() end
local function check(cond, what, detail)
  if cond then
    passed = passed + 1
    out('ok   ' .. what)
  else
    failed = failed + 1
    out('FAIL ' .. what .. (detail and ('\n     ' .. tostring(detail):gsub('\n', '\n     ')) or ''))
  end
  return cond
end

-- Notifications are captured (headless Neovim has no UI to show them).
local notes = {}
vim.notify = function(msg, level) table.insert(notes, { msg = msg, level = level or vim.log.levels.INFO }) end
local function last_note() return notes[#notes] or { msg = '', level = -1 } end

local function wait(ms, cond) return vim.wait(ms, cond, 20) end

-- cli is the reference: `ctxls assemble` on the same workspace, its own cache.
local function cli(args)
  local cmd = { 'env', 'CTXLS_CACHE_DIR=' .. os.getenv('CTXLS_CLI_CACHE'), bin, 'assemble', '--root', ws }
  vim.list_extend(cmd, args)
  local text = vim.fn.system(cmd)
  if vim.v.shell_error ~= 0 then error('ctxls assemble failed: ' .. text) end
  return text
end

local function buffer_text(name)
  local b = vim.fn.bufnr(name)
  if b == -1 then return nil end
  return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') .. '\n'
end

local ctxls = require('ctxls')

-- Waits for the next answer of a command; returns whether it came.
local function answered_after(n) return wait(30000, function() return ctxls.answered > n end) end

local function main()
  assert(bin and ws, 'CTXLS_BIN and CTXLS_WS must be set')

  -- 1. A missing binary: a clear message with the install command, no server.
  ctxls.setup({ cmd = { '/nonexistent/ctxls', 'serve' } })
  vim.cmd('edit ' .. ws .. '/README.md')
  check(last_note().level == vim.log.levels.ERROR and last_note().msg:find(ctxls.INSTALL, 1, true) ~= nil,
    'missing binary: an error naming the install command', last_note().msg)
  check(#ctxls.clients() == 0, 'missing binary: no client started')

  -- The settings object: the endpoint's table in the server's spelling.
  local s = ctxls.settings({ embeddings = 'endpoint', git_history = false,
    embeddings_endpoint = { url = 'http://127.0.0.1:11434/v1', model = 'nomic-embed-text', key_env = 'EMBED_KEY' } })
  check(vim.deep_equal(s, { embeddings = 'endpoint', gitHistory = false,
    embeddingsEndpoint = { url = 'http://127.0.0.1:11434/v1', model = 'nomic-embed-text', keyEnv = 'EMBED_KEY' } }),
    'settings: the embeddings endpoint in the server\'s spelling', vim.inspect(s))
  -- A default setup{} sends an object, never [] (which the server refuses).
  check(vim.fn.json_encode(ctxls.settings({})) == '{}' and vim.json.encode(ctxls.settings({})) == '{}',
    'settings: a default setup sends {} (an object), not []', vim.fn.json_encode(ctxls.settings({})))

  -- 2. The real server starts for a workspace file and attaches the buffer.
  -- activity = false: the contexts are compared with the CLI's, which has
  -- no editor session (the activity has its own tests: lsp TestActivity).
  ctxls.setup({ cmd = { bin, 'serve' }, budget = BUDGET, register = 'a', activity = false })
  vim.cmd('edit ' .. ws .. '/pricing/tax.go')
  local taxbuf = vim.api.nvim_get_current_buf()
  local up = wait(20000, function()
    local c = ctxls.client_for(taxbuf)
    local st = c and ctxls.status(c)
    return st ~= nil and st.server_info ~= nil and vim.lsp.buf_is_attached(taxbuf, c.id)
  end)
  local client = ctxls.client_for(taxbuf)
  if not check(up, 'the server starts and the buffer is attached') then return end
  check(client.config.root_dir == ws, 'the workspace root is found (.git)', client.config.root_dir)
  check(ctxls.status(client).server_info.name == 'ctxls', 'serverInfo names ctxls')
  check(#ctxls.clients() == 1, 'one client for the workspace (README.md and tax.go share it)', #ctxls.clients())

  -- 3. :CtxlsAssemble QUESTION with the cursor as focus: the context buffer holds
  -- exactly what `ctxls assemble` renders for the same question, focus and budget.
  vim.api.nvim_win_set_cursor(0, { 21, 5 }) -- "func Tax(" line, on "Tax"
  local n = ctxls.answered
  vim.cmd('CtxlsAssemble ' .. QUESTION)
  check(answered_after(n), ':CtxlsAssemble is answered')
  local want = cli({ '--query', QUESTION, '--focus', 'pricing/tax.go:21:6', '--budget', tostring(BUDGET) })
  local got = buffer_text('ctxls://context')
  check(got == want, ':CtxlsAssemble: the context buffer is the server\'s context (same as ctxls assemble)',
    'got:\n' .. tostring(got) .. '\nwant:\n' .. want)
  check(got and got:find('func Tax(region string, cents int64) int64 {', 1, true), 'the context holds pricing.Tax')
  -- What the budget leaves out: pricing.Format's body (at most its
  -- signature fits in 300 tokens), which a larger budget shows.
  check(not (got or ''):find('return fmt.Sprintf("%d.%02d"', 1, true), 'pricing.Format\'s body does not fit in the budget')
  check(cli({ '--query', QUESTION, '--focus', 'pricing/tax.go:21:6', '--budget', '4000' }):find('return fmt.Sprintf("%d.%02d"', 1, true) ~= nil,
    'a larger budget shows it (the budget is what left it out)')
  check(ctxls.last and ctxls.last.stats.maxTokens == BUDGET and ctxls.last.stats.totalTokens <= BUDGET,
    'the budget from setup{} is the one the server used, and respected', ctxls.last and vim.inspect(ctxls.last.stats))
  check(vim.fn.getreg('a') == want, 'the context is in register a')
  local cbuf = vim.fn.bufnr('ctxls://context')
  check(vim.bo[cbuf].filetype == 'markdown' and vim.bo[cbuf].buftype == 'nofile', 'a scratch markdown buffer')
  check(vim.fn.bufwinid(cbuf) ~= -1 and vim.fn.bufwinid(taxbuf) ~= -1, 'shown in a split beside the file')
  check(last_note().msg:match('^ctxls: context: %d+/300 tokens') ~= nil, 'a summary is shown', last_note().msg)

  -- 4. A visual selection: its text is the question and its start the focus.
  vim.cmd('wincmd p')
  vim.cmd('edit ' .. ws .. '/cart/cart.go')
  local cartbuf = vim.api.nvim_get_current_buf()
  wait(5000, function() return vim.lsp.buf_is_attached(cartbuf, client.id) end)
  vim.cmd('normal! 45GV47G\27')
  n = ctxls.answered
  vim.cmd("'<,'>CtxlsAssemble")
  check(answered_after(n), ':\'<,\'>CtxlsAssemble is answered')
  local selected = 'func (c *Cart) Total() int64 { sub := c.Subtotal() return sub + pricing.Tax(c.Region, sub)'
  want = cli({ '--query', selected, '--focus', 'cart/cart.go:45:1', '--budget', tostring(BUDGET) })
  got = buffer_text('ctxls://context')
  check(got == want, 'selection: the question is the selected text, the focus its first line', 'got:\n' .. tostring(got) .. '\nwant:\n' .. want)
  local covers = false
  for _, p in ipairs(ctxls.last.parts) do
    for _, g in ipairs(p.ranges) do
      if p.path == 'cart/cart.go' and g.start <= 45 and 45 <= g['end'] then covers = true end
    end
  end
  check(covers, 'selection: a part covers the selected line 45')

  -- 5. :CtxlsExpand HANDLE: the omitted lines come back in full.
  local om = ctxls.last.omitted[1]
  if check(om ~= nil, 'the result lists omitted candidates') then
    n = ctxls.answered
    vim.cmd('CtxlsExpand ' .. om.handle)
    check(answered_after(n), ':CtxlsExpand is answered')
    got = buffer_text('ctxls://context') or ''
    local lines = vim.fn.readfile(ws .. '/' .. om.path)
    local all = true
    for i = om.ranges[1].start, om.ranges[1]['end'] do
      if vim.trim(lines[i] or '') ~= '' and not got:find(lines[i], 1, true) then all = false end
    end
    check(all, ':CtxlsExpand ' .. om.handle .. ': the buffer holds those lines', got)
    check(vim.fn.getreg('a') == got, ':CtxlsExpand: the register holds the expansion')
    -- Without a handle it offers the last result's omitted list (vim.ui.select).
    -- Each item says what it is (symbol, path and lines, tokens), and
    -- duplicates of parts already shown are not offered.
    local offered, shown
    vim.ui.select = function(items, o, on_choice)
      offered, shown = items, {}
      for _, it in ipairs(items) do table.insert(shown, o.format_item(it)) end
      on_choice(items[#items])
    end
    n = ctxls.answered
    vim.cmd('CtxlsExpand')
    local dups = 0
    for _, o in ipairs(ctxls.last.omitted) do
      if o.reason:match('^duplicate') then dups = dups + 1 end
    end
    check(answered_after(n) and offered and #offered == #ctxls.last.omitted - dups and #offered > 0,
      ':CtxlsExpand offers the omitted list without duplicates')
    local described = offered and #offered > 0
    for i, it in ipairs(offered or {}) do
      local s = shown[i]
      local r = it.ranges[1]
      if not (s:find(it.path .. ':' .. r.start, 1, true) and (it.symbol == nil or it.symbol == '' or s:find(it.symbol, 1, true))
          and (it.tokens == 0 or s:find(it.tokens .. ' tokens', 1, true))) then
        described = false
        io.stdout:write('not described: ' .. s .. '\n')
      end
    end
    check(described, ':CtxlsExpand items name the symbol, the path and lines, and the tokens', shown and shown[1])
  end

  -- 6. An error answer: a message, the buffer left as it was.
  local before = buffer_text('ctxls://context')
  n = ctxls.answered
  vim.cmd('CtxlsExpand nowhere/missing.go#L1-2')
  check(answered_after(n), 'a bad handle is answered')
  check(last_note().level == vim.log.levels.ERROR and last_note().msg:match('^ctxls: ') ~= nil,
    'a bad handle: an error message', last_note().msg)
  check(buffer_text('ctxls://context') == before, 'a bad handle: the context buffer is unchanged')

  -- 7. :CtxlsAssembleDiff after an edit saved from Neovim.
  vim.cmd('edit ' .. ws .. '/textutil/text.go')
  local tbuf = vim.api.nvim_get_current_buf()
  wait(5000, function() return vim.lsp.buf_is_attached(tbuf, client.id) end)
  n = ctxls.answered
  vim.cmd('CtxlsAssembleDiff')
  check(ctxls.answered == n and last_note().msg:find('no changes', 1, true), 'no changes: nothing sent, a message',
    last_note().msg)
  vim.cmd([[silent keepjumps %s/strings.Join(lines, "\\n")/strings.Join(lines, "\\r\\n")/]])
  vim.cmd('silent write')
  vim.cmd('CtxlsAssembleDiff')
  check(answered_after(n), ':CtxlsAssembleDiff is answered')
  want = cli({ '--diff', 'HEAD', '--budget', tostring(BUDGET), '--mode', 'review' })
  got = buffer_text('ctxls://context')
  check(got == want, ':CtxlsAssembleDiff: the context of the working-tree diff in the review mode (same as ctxls assemble --diff HEAD --mode review)',
    'got:\n' .. tostring(got) .. '\nwant:\n' .. want)
  check((got or ''):find('textutil.JoinLines(', 1, true), 'the diff context holds the changed function\'s caller')
  ctxls.config.changes_mode = 'related'
  n = ctxls.answered
  vim.cmd('CtxlsAssembleDiff')
  check(answered_after(n), ':CtxlsAssembleDiff (changes_mode related) is answered')
  want = cli({ '--diff', 'HEAD', '--budget', tostring(BUDGET), '--mode', 'related' })
  got = buffer_text('ctxls://context')
  check(got == want, 'changes_mode = related: the related mode\'s context (same as ctxls assemble --diff HEAD --mode related)',
    'got:\n' .. tostring(got) .. '\nwant:\n' .. want)
  ctxls.config.changes_mode = 'review'

  -- 8. Unsaved buffers count: a new file that exists only in Neovim is found.
  vim.cmd('edit ' .. ws .. '/pricing/surcharge.go')
  local sbuf = vim.api.nvim_get_current_buf()
  wait(5000, function() return vim.lsp.buf_is_attached(sbuf, client.id) end)
  vim.api.nvim_buf_set_lines(sbuf, 0, -1, false, {
    'package pricing', '', '// Surcharge is the holiday surcharge added at checkout: 2%.',
    'func Surcharge(cents int64) int64 { return cents / 50 }',
  })
  n = ctxls.answered
  vim.cmd('CtxlsAssemble holiday surcharge')
  check(answered_after(n), 'unsaved buffer: answered')
  got = buffer_text('ctxls://context') or ''
  check(got:find('func Surcharge(cents int64) int64', 1, true) ~= nil, 'unsaved buffer: its text is in the context', got)
  check(vim.fn.filereadable(ws .. '/pricing/surcharge.go') == 0, 'unsaved buffer: not on disk')

  -- 9. :checkhealth ctxls: binary, version, the server's index state.
  vim.cmd('checkhealth ctxls')
  io.stdout:write('\n') -- after Neovim's "Running healthchecks..."
  local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  check(health:find('found: ' .. bin, 1, true) ~= nil, 'checkhealth: the binary', health)
  check(health:find('version: ctxls ', 1, true) ~= nil, 'checkhealth: its version', health)
  check(health:find('index: complete, state %x+') ~= nil, 'checkhealth: the index state', health)
  check(health:find('workspace ' .. ws, 1, true) ~= nil, 'checkhealth: the running server and its workspace', health)
  check(not health:find('ERROR'), 'checkhealth: no error', health)
end

local ok, err = xpcall(main, debug.traceback)
if not ok then check(false, 'the test ran to the end', err) end

-- Stop the servers and wait for them to exit (shutdown + exit).
for _, c in ipairs(ctxls.clients()) do vim.lsp.stop_client(c.id) end
vim.wait(10000, function() return #ctxls.clients() == 0 end, 20)
out(string.format('%d passed, %d failed', passed, failed))
if failed > 0 then vim.cmd('cquit 1') else vim.cmd('qall!') end
