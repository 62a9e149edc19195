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

-- What a procedure prints reaches a pipe or a file line by line, as it would a terminal (a
-- procedure that prints a verdict every few seconds is seen as it goes, under `| tee` too).
io.stdout:setvbuf("line")

-- print writes through io.stdout so that it stays ordered with io.write.
function print(...)
	local n = select("#", ...)
	local parts = {}
	local printed_nil = false
	for i = 1, n do
		local v = (select(i, ...))
		printed_nil = printed_nil or v == nil
		parts[i] = tostring(v)
	end
	io.stdout:write(table.concat(parts, "\t"), "\n")
	if printed_nil then
		io.stdout:flush()
		__idp_printed_nil()
	end
end

function printmodels(sols)
	if sols == nil then
		io.stderr:write("Error: printmodels was called with nil as input (possibly due to a previous error)\n")
		return
	end
	if #sols == 0 then
		print("Unsatisfiable")
	end
	print("Number of models: " .. #sols)
	local meta = getmetatable(sols)
	if #sols == 0 and rawtype(meta) == "table" and meta.__idp_why then
		io.stdout:flush()
		io.stderr:write(meta.__idp_why, "\n")
	end
	-- Every model is printed, whole, also when a limit stopped the search that found them.
	__idp_delivering(true)
	local ok, err = pcall(function()
		for k, v in rawipairs(sols) do
			local header = "Model " .. k
			print(header)
			print(string.rep("=", #header))
			print(v)
		end
	end)
	__idp_delivering(false)
	if not ok then
		error(err, 0)
	end
end

-- initialise(T, S [, Time, Start, Next]): IDP3's wrapper around idpintern.initialise.
function initialise(theory, structure, timesym, startsym, nextsym)
	__idp_arguments("initialise", "theory structure", theory, structure)
	local given = 0
	for _, s in rawipairs({ timesym ~= nil, startsym ~= nil, nextsym ~= nil }) do
		if s then
			given = given + 1
		end
	end
	local result
	if given == 0 then
		result = idpintern.initialise(theory, structure)
	elseif given == 3 then
		result = idpintern.initialise(theory, structure, timesym, startsym, nextsym)
	else
		print("Error: please either provide Time, Start and Next or provide none of them.")
		return
	end
	return result[1], result[2], result[3], result[4], result[5]
end

-- IDP3's modelIterator returns no trace; with stdoptions.trace, the search's trace is kept
-- in the registry as sat_trace_N (debug.getregistry()), as modelexpand's.
function modelIterator(T, S, V)
	local models = allmodels(T, S, V)
	local i = 0
	return function()
		i = i + 1
		return models[i]
	end
end

function help(ns)
	print([[IDP procedures (T a theory, S a structure, V a vocabulary, t a term, Q a query):
  Models:       modelexpand(T,S[,V]) onemodel(T,S[,V]) allmodels(T,S[,V]) modelIterator(T,S[,V])
                modelexpandpartial(T,S[,V]) modelcount(T,S[,V]) sat(T,S) printmodels(list)
                minimize(T,S,t[,V]) maximize(T,S,t[,V])
  Why:          printunsatcore(T,S) unsatstructure(T,S[,V]) explainunsat(T,S[,V])
                explain(T,S,"literal") printcore(T,S)
  Propagation:  propagate(T,S) groundpropagate(T,S) optimalpropagate(T,S) fullpropagate(T,S)
                bestpropagate(T,S)
  Definitions:  calculatedefinitions(T,S[,V]) refinedefinitions(T,S[,V])
  Queries:      query(Q,S) value(t,S)
  Grounding:    ground(T,S) groundeq(T,S,b) printgrounding(T,S)
  Theories:     completion(T) flatten(T) pushnegations(T) removenesting(T)
                removecardinalities(T,n) merge(T1,T2) tometa(T) frommeta(V,P,S) printasbdd(T)
  LTC:          initialise(T,S) progress(T,state) shortestplan(T,S[,N]) isinvariant(T,Inv,S)
                simulate(T,S) simulate_random(T,S) simulate_interactive(T,S)
  Structures:   clone(x) merge(S1,S2) equal(S1,S2) isconsistent(S) clean(S) newstructure(V,name)
                setvocabulary(S,V) getvocabulary(x) nbModelsTwoValuedExtensions(S)
                nrtwovaluedatoms(S) maketrue/makefalse/makeunknown(S[V::P],tuple) visualize(S)
                range(a,b) tuples(table) elements(domain) idptype(x) parse(file)
  Options:      print(stdoptions) lists them, e.g. stdoptions.nbmodels = 0 for all models;
                getoptions() newoptions() setascurrentoptions(o)
  Not here:     entails(T1,T2) detectfunctions(T) (IDP3 calls an external theorem prover)
In idp -i, a list of models is printed as printmodels prints it.]])
end

-- The inferences that IDP3 writes in Lua (its idp_intern.idp): they check their arguments
-- and call the internal procedures of idpintern. Where IDP3 writes `Error: theory expected`
-- and goes on, a wrong argument stops the chunk with the argument, what was given and the
-- calling line (__idp_arguments, src/lua/arguments.rs).
local function theory_and_structure(proc, theory, structure, vocabulary)
	__idp_arguments(proc, "theory structure vocabulary?", theory, structure, vocabulary)
	return true
end

function modelexpandpartial(theory, structure, vocabulary)
	theory_and_structure("modelexpand", theory, structure, vocabulary)
	if vocabulary ~= nil then
		return idpintern.modelexpand(theory, structure, vocabulary)
	end
	return idpintern.modelexpand(theory, structure)
end

function modelexpand(theory, structure, vocabulary)
	local solutions, trace = modelexpandpartial(theory, structure, vocabulary)
	if stdoptions.verbosity.grounding > 0 then
		io.stderr:write("Extending partial models to full models\n")
	end
	if solutions == nil then
		io.stderr:write("Error: probably bad input\n")
		return
	end
	-- The list notes an index past its end, for the error that indexing nil then gives.
	return __idp_models(nbModelsTwoValuedExtensions(solutions), "modelexpand", trace, theory, structure), trace
end

-- With a fixed number of models asked for, restored afterwards.
local function with_nbmodels(n, f)
	local options = getoptions()
	local saved = options.nbmodels
	options.nbmodels = n
	local a, b = f()
	options.nbmodels = saved
	return a, b
end

function onemodel(T, S, V)
	local solutions, trace = with_nbmodels(1, function()
		if V then
			return modelexpand(T, S, V)
		end
		return modelexpand(T, S)
	end)
	local solution = solutions and solutions[1]
	if trace then
		return solution, trace
	end
	return solution
end

function allmodels(T, S, V)
	local solutions, trace = with_nbmodels(0, function()
		if V then
			return modelexpand(T, S, V)
		end
		return modelexpand(T, S)
	end)
	if trace then
		return solutions, trace
	end
	return solutions
end

function sat(theory, structure)
	local solutions = with_nbmodels(1, function()
		return modelexpandpartial(theory, structure, newvocabulary("empty"))
	end)
	return #solutions > 0
end

function minimize(theory, structure, term, vocabulary)
	__idp_arguments("minimize", "theory structure term vocabulary?", theory, structure, term, vocabulary)
	local solutions, optimal, value, trace
	if vocabulary ~= nil then
		solutions, optimal, value, trace = idpintern.minimize(theory, structure, term, vocabulary)
	else
		solutions, optimal, value, trace = idpintern.minimize(theory, structure, term)
	end
	return __idp_models(nbModelsTwoValuedExtensions(solutions), "minimize"), optimal, value, trace
end

function maximize(theory, structure, term, vocabulary)
	return minimize(theory, structure, idpintern.negateterm(term), vocabulary)
end

for _, name in rawipairs({ "propagate", "groundpropagate", "optimalpropagate", "fullpropagate", "bestpropagate" }) do
	_G[name] = function(theory, structure)
		theory_and_structure(name, theory, structure)
		return idpintern[name](theory, structure)
	end
end

function printcore(theory, structure)
	print("Warning: using deprecated method \"printcore\". Please use \"printunsatcore\" instead.")
	printunsatcore(theory, structure)
end

function setBootstrapping(val)
	if type(val) ~= "boolean" then
		io.stderr:write("Error: boolean expected\n")
		return
	end
	stdoptions.postprocessdefs = val
	stdoptions.splitdefs = val
	stdoptions.joindefsforxsb = val
	stdoptions.guaranteenorecursionnegation = not val
end

-- IDP3's built-in namespaces as globals: stdspace (with inferences and options inside),
-- inferences, structure, theory, vocabulary, options, idpintern.
local function member(ns, name)
	local t = _G[ns]
	if t == nil then
		t = {}
		_G[ns] = t
	end
	t[name] = _G[name]
end
stdspace = stdspace or {}
for _, name in rawipairs({ "help", "tuples", "elements", "idptype" }) do
	stdspace[name] = _G[name]
end
for _, name in rawipairs({ "modelexpand", "modelexpandpartial", "modelIterator", "sat", "maximize", "minimize",
	"optimalpropagate", "fullpropagate", "bestpropagate", "groundpropagate", "propagate", "initialise",
	"onemodel", "allmodels", "printmodels", "printcore" }) do
	member("inferences", name)
end
member("options", "setBootstrapping")
stdspace.inferences = inferences
stdspace.options = options
idpintern.idptype = idptype

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

-- IDP3's procedures that say why there is no model (data/share/std/idp_intern.idp);
-- __idp_unsatcore is IDP3's idpintern.unsatcore.
function printunsatcore(theory, structure)
	theory_and_structure("printunsatcore", theory, structure)
	__idp_unsatcore(false, true, theory, structure, getvocabulary(theory))
	return
end

function unsatstructure(theory, structure, vocabulary)
	theory_and_structure("unsatstructure", theory, structure, vocabulary)
	if vocabulary == nil then
		vocabulary = getvocabulary(theory)
	end
	return __idp_unsatcore(true, false, theory, structure, vocabulary)
end

function explainunsat(theory, structure, vocabulary)
	theory_and_structure("explainunsat", theory, structure, vocabulary)
	if vocabulary == nil then
		vocabulary = getvocabulary(theory)
	end
	local s, t = __idp_unsatcore(true, true, theory, structure, vocabulary)
	print(s)
	return s, t
end

-- IDP3's grounding procedures (data/share/std/idp_intern.idp), with their argument checks.
-- The ground theory preserves the number of models whatever modeleq says.
local function grounding(proc, theory, structure, modeleq)
	theory_and_structure(proc, theory, structure)
	return idpintern.ground(theory, structure, modeleq == true)
end

function groundeq(theory, structure, modeleq)
	return grounding("groundeq", theory, structure, modeleq)
end

function ground(theory, structure, modelequivalent)
	if modelequivalent == nil then
		modelequivalent = true
	end
	return grounding("ground", theory, structure, modelequivalent)
end

function printgrounding(theory, structure, modelequivalent)
	theory_and_structure("printgrounding", theory, structure)
	if modelequivalent == nil then
		modelequivalent = true
	end
	return idpintern.printgrounding(theory, structure, modelequivalent)
end
for _, name in rawipairs({ "ground", "groundeq", "printgrounding" }) do
	member("inferences", name)
end
