-- :checkhealth ctxls — the binary, its version, and each running server's
-- index state. Works with Neovim 0.7's require("health") and newer vim.health.
local M = {}

local function reporter()
  local h = vim.health
  if h and h.start then
    return { start = h.start, ok = h.ok, warn = h.warn, error = h.error, info = h.info }
  end
  if h and h.report_start then
    return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
  end
  local old = require('health') -- Neovim 0.7
  return { start = old.report_start, ok = old.report_ok, warn = old.report_warn, error = old.report_error,
    info = old.report_info }
end

local function short(s)
  return type(s) == 'string' and s:sub(1, 12) or tostring(s)
end

function M.check()
  local r = reporter()
  local ctxls = require('ctxls')
  local cfg = ctxls.config

  r.start('ctxls: binary')
  local bin = cfg.cmd[1]
  local path = vim.fn.exepath(bin)
  if path == '' then
    r.error(string.format('%q not found (cmd = %s)', bin, vim.inspect(cfg.cmd)), {
      'Install it: ' .. ctxls.INSTALL .. ' (needs Go, and gcc unless CGO_ENABLED=0)',
      'or give its path: require("ctxls").setup{ cmd = { "/path/to/ctxls", "serve" } }',
    })
  else
    r.ok('found: ' .. path)
    local out = vim.fn.system({ path, 'version' })
    if vim.v.shell_error == 0 then
      r.ok('version: ' .. vim.trim(out))
    else
      r.warn('`' .. path .. ' version` failed: ' .. vim.trim(out), { 'an older ctxls? reinstall with ' .. ctxls.INSTALL })
    end
  end
  r.info('settings sent to the server: ' .. vim.inspect(ctxls.settings(), { newline = ' ', indent = '' }))

  r.start('ctxls: servers')
  local clients = ctxls.clients()
  if #clients == 0 then
    r.warn('no ctxls server is running', {
      'it starts when a file of a workspace is opened after require("ctxls").setup{}',
      'a workspace root holds one of: ' .. table.concat(cfg.root_markers, ', '),
    })
    return
  end
  for _, c in ipairs(clients) do
    local st = ctxls.status(c) or {}
    local info = st.server_info or {}
    r.ok(string.format('client %d: %s %s, workspace %s', c.id, info.name or 'ctxls', info.version or '?',
      c.config.root_dir or '?'))
    if st.assemble_version ~= 1 then
      r.error('the server does not advertise experimental.contextAssemble version 1: is ' .. bin .. ' ctxls?')
    end
    local running = false
    for _, t in pairs(st.tasks or {}) do
      running = true
      r.info(string.format('indexing: %s %s%s', t.title or '', t.message or '',
        t.percentage and string.format(' (%d%%)', t.percentage) or ''))
    end
    if st.done then r.info('last index build: ' .. st.done) end
    -- Ask the server: a tiny context/assemble says which index state answers and whether it is complete.
    local resp = ctxls.request_sync(c, 'context/assemble',
      { query = 'ctxls health check', budget = { maxTokens = 64 } }, 5000, 0)
    if not resp then
      r.warn('the server did not answer a context/assemble within 5 s')
    elseif resp.err then
      r.error('context/assemble failed: ' .. tostring(resp.err.message))
    else
      local s = resp.result and resp.result.stats or {}
      if s.indexComplete then
        r.ok(string.format('index: complete, state %s, %d candidates for a probe question', short(s.indexState),
          s.candidates or 0))
      elseif running then
        r.warn(string.format('index: still being built (state %s): answers may be partial', short(s.indexState)))
      else
        r.warn(string.format('index: incomplete (state %s)%s', short(s.indexState), s.note and (': ' .. s.note) or ''))
      end
    end
    local log = st.log or {}
    for i = math.max(1, #log - 4), #log do r.info('server: ' .. log[i]) end
  end
  r.info('server log: ' .. (vim.lsp.get_log_path and vim.lsp.get_log_path() or 'lsp.log'))
end

return M
