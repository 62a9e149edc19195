-- Lua side of the IDP runtime: type names, iteration over IDP objects, printing helpers.

local rawtype, rawpairs, rawipairs = type, pairs, ipairs
local typeof = __idp_typeof

local namespace_mt = { __idptype = "namespace" }

function __idp_new_namespace(name)
	return setmetatable({}, {
		__idptype = "namespace",
		__tostring = function() return "namespace " .. name end,
	})
end

-- The environment of a procedure declared in a namespace: its namespace's members (innermost
-- first), then the globals. Assignments go to the globals.
function __idp_namespace_env(...)
	local chain = { ... }
	return setmetatable({}, {
		__index = function(_, k)
			for i = 1, #chain do
				local v = rawget(chain[i], k)
				if v ~= nil then
					return v
				end
			end
			return _G[k]
		end,
		__newindex = _G,
	})
end

-- IDP3 overrides type() to name its userdata.
function type(x)
	local t = rawtype(x)
	if t == "userdata" then
		return typeof(x) or t
	elseif t == "table" then
		local mt = getmetatable(x)
		if rawtype(mt) == "table" and rawget(mt, "__idptype") then
			return rawget(mt, "__idptype")
		end
	end
	return t
end
idptype = type

local function seq_iter(x, n)
	local i = 0
	return function()
		i = i + 1
		if i <= n then
			return i, x[i]
		end
	end
end

function ipairs(x)
	if rawtype(x) == "userdata" then
		local t = typeof(x)
		if t == "tuple" or t == "domain" or t == "predicate_table" then
			return seq_iter(x, #x)
		end
	end
	return rawipairs(x)
end

function pairs(x)
	if rawtype(x) == "userdata" then
		local t = typeof(x)
		if t == "tuple" or t == "domain" or t == "predicate_table" then
			return seq_iter(x, #x)
		end
	end
	return rawpairs(x)
end

-- print writes through io.stdout so that it stays ordered with io.write.
function print(...)
	local n = select("#", ...)
	local parts = {}
	for i = 1, n do
		parts[i] = tostring((select(i, ...)))
	end
	io.stdout:write(table.concat(parts, "\t"), "\n")
end

function printmodels(sols)
	if sols == nil then
		__idp_report_error("printmodels was called with nil as input (possibly due to a previous error)")
		return
	end
	if #sols == 0 then
		print("Unsatisfiable")
	end
	print("Number of models: " .. #sols)
	for k, v in rawipairs(sols) do
		local header = "Model " .. k
		print(header)
		print(string.rep("=", #header))
		print(v)
	end
end

function modelIterator(T, S, V)
	local models = allmodels(T, S, V)
	local i = 0
	return function()
		i = i + 1
		return models[i]
	end
end

function help(ns)
	print([[IDP procedures (see the IDP3 manual for details):
  modelexpand(T,S[,V]) onemodel(T,S[,V]) allmodels(T,S[,V]) sat(T,S) printmodels(list)
  minimize(T,S,t[,V]) maximize(T,S,t[,V]) calculatedefinitions(T,S[,V]) query(Q,S) value(t,S)
  propagate(T,S) groundpropagate(T,S) optimalpropagate(T,S)
  clone(x) merge(S1,S2) equal(S1,S2) isconsistent(S) newstructure(V,name) setvocabulary(S,V)
  getvocabulary(x) range(a,b) tuples(table) elements(domain) maketrue/makefalse/makeunknown(S[V::P],tuple)
  nbModelsTwoValuedExtensions(S) idptype(x) getoptions() newoptions() setascurrentoptions(o)
Options: print(stdoptions) lists them, e.g. stdoptions.nbmodels = 0 for all models.]])
end

-- IDP3 set up its web visualiser here; idp draws in the terminal and as SVG without set-up.
function initVisualization()
end

-- visualize(structure [, options]): draws the structure's grid (see the README).
function visualize(s, opts)
	local text = __idp_visualize(s, opts)
	if text ~= "" then
		io.stdout:write(text)
	end
end

-- IDP3's procedures that say why there is no model (data/share/std/idp_intern.idp), with its
-- argument messages; __idp_unsatcore is IDP3's idpintern.unsatcore.
function printunsatcore(theory, structure)
	if type(theory) ~= "theory" then
		io.stderr:write("Error: theory expected\n")
		return
	end
	if type(structure) ~= "structure" then
		io.stderr:write("Error: structure expected\n")
		return
	end
	__idp_unsatcore(false, true, theory, structure, getvocabulary(theory))
	return
end

function printcore(theory, structure)
	print("Warning: using deprecated method \"printcore\". Please use \"printunsatcore\" instead.")
	printunsatcore(theory, structure)
end

local function unsat_arguments(theory, structure, vocabulary)
	if type(theory) ~= "theory" then
		io.stderr:write("Error: theory expected\n")
		return false
	end
	if type(structure) ~= "structure" then
		io.stderr:write("Error: structure expected\n")
		return false
	end
	if vocabulary ~= nil and type(vocabulary) ~= "vocabulary" then
		io.stderr:write("Error: vocabulary expected\n")
		return false
	end
	return true
end

function unsatstructure(theory, structure, vocabulary)
	if not unsat_arguments(theory, structure, vocabulary) then
		return
	end
	if vocabulary == nil then
		vocabulary = getvocabulary(theory)
	end
	return __idp_unsatcore(true, false, theory, structure, vocabulary)
end

function explainunsat(theory, structure, vocabulary)
	if not unsat_arguments(theory, structure, vocabulary) then
		return
	end
	if vocabulary == nil then
		vocabulary = getvocabulary(theory)
	end
	local s, t = __idp_unsatcore(true, true, theory, structure, vocabulary)
	print(s)
	return s, t
end
