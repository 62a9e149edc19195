-- Neovim's own LSP client (0.7 or later) talking to `idp lsp`, run headless by
-- tests/lsp_neovim.rs: IDP_BIN is the binary, IDP_FILE the file to edit, IDP_OUT where the
-- answers go (JSON). Each step is what a user's key press makes Neovim send.
local idp, file, out = os.getenv('IDP_BIN'), os.getenv('IDP_FILE'), os.getenv('IDP_OUT')
local answers = {}

local function wait(what, ms, condition)
  if not vim.wait(ms, condition, 20) then
    error('timed out waiting for ' .. what)
  end
end

local function steps()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = 'idp',
    cmd = { idp, 'lsp' },
    root_dir = vim.fn.fnamemodify(file, ':h'),
  })
  assert(id, 'the client started')
  vim.lsp.buf_attach_client(buf, id)
  local client = vim.lsp.get_client_by_id(id)
  wait('initialize', 10000, function() return client.initialized end)
  local doc = { uri = vim.uri_from_bufnr(buf) }
  local function at(line, character)
    return { textDocument = doc, position = { line = line, character = character } }
  end
  local function ask(method, params)
    local answer, err = client.request_sync(method, params, 10000, buf)
    assert(answer, method .. ': ' .. tostring(err))
    assert(not answer.err, method .. ': ' .. vim.inspect(answer.err))
    return answer.result
  end
  local function lines()
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  end

  -- formatting lays out the file the test wrote out of shape
  vim.lsp.buf.formatting_sync(nil, 10000)
  answers.formatted = lines()

  local hover = ask('textDocument/hover', at(10, 26))
  answers.hover = hover.contents.value

  local definition = ask('textDocument/definition', at(10, 26))
  if definition[1] then definition = definition[1] end
  answers.definition = definition.range.start

  local refs = at(10, 26)
  refs.context = { includeDeclaration = true }
  answers.references = #ask('textDocument/references', refs)

  local completion = ask('textDocument/completion', at(14, 10))
  local labels = {}
  for _, item in ipairs(completion.items or completion) do
    labels[#labels + 1] = item.label
  end
  table.sort(labels)
  answers.completion = labels

  local lenses = {}
  for _, lens in ipairs(ask('textDocument/codeLens', { textDocument = doc })) do
    lenses[#lenses + 1] = lens.command and lens.command.title or '?'
  end
  answers.lenses = lenses

  -- a typo typed into the file: the server's diagnostic reaches Neovim's diagnostics
  vim.api.nvim_buf_set_text(buf, 13, 11, 13, 19, { 'Ancestr' })
  wait('diagnostics', 10000, function() return #vim.diagnostic.get(buf) > 0 end)
  local diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    diagnostics[#diagnostics + 1] = { line = d.lnum, col = d.col, message = d.message }
  end
  answers.diagnostics = diagnostics
  vim.api.nvim_buf_set_text(buf, 13, 11, 13, 18, { 'Ancestor' })
  wait('diagnostics cleared', 10000, function() return #vim.diagnostic.get(buf) == 0 end)

  -- rename, applied by Neovim to the buffer
  local rename = at(10, 26)
  rename.newName = 'ParentOf'
  vim.lsp.util.apply_workspace_edit(ask('textDocument/rename', rename), client.offset_encoding)
  answers.renamed = lines()

  client.stop()
  wait('shutdown', 10000, function() return client.is_stopped() end)
end

local ok, err = pcall(steps)
if not ok then answers.error = tostring(err) end
local f = assert(io.open(out, 'w'))
f:write(vim.fn.json_encode(answers))
f:close()
vim.cmd(ok and 'qall!' or 'cquit 1')
