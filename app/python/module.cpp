// sinkscope._core: SinkScope's analyses for Python (pybind11). Attention from
// any framework, as numpy arrays, goes through the same checks as a capture
// file and the same code as sinkscope-cli analyze; the GIL is released while
// the C++ core works. The Python side (sinkscope/__init__.py) turns the CSV
// tables into columns.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/graph_spectrum.h"
#include "analysis/persistence.h"
#include "analysis/sink_metric.h"
#include "analysis/value_space.h"
#include "models/capture.h"
#include "models/cpu_runtime.h"
#include "models/document/analysis_setting_specs.h"
#include "models/document/analysis_settings.h"
#include "models/document/analyze_report.h"
#include "models/document/run_views.h"
#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "models/document/web_page.h"
#include "models/io/table_io.h"
#include "models/loaded_model.h"

namespace py = pybind11;
namespace m = sinkscope::models;
namespace a = sinkscope::analysis;
namespace d = sinkscope::document;

namespace {

// A str as UTF-8; a lone surrogate ("\ud800") has none and is refused by name
// (pybind11's own cast would raise a RuntimeError that names nothing).
std::string utf8_of(const py::handle& text, const std::string& what) {
  Py_ssize_t size = 0;
  const char* bytes = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (!bytes) {
    PyErr_Clear();
    throw py::value_error(what + " is not valid Unicode (a lone surrogate has no UTF-8)");
  }
  return std::string(bytes, static_cast<std::size_t>(size));
}

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// Any array-like as C-ordered float32 (float64 and integer arrays are
// converted; objects numpy cannot read are a TypeError naming `argument`).
FloatArray as_floats(const py::handle& value, const char* argument) {
  if (value.is_none()) throw py::type_error(std::string(argument) + ": an array is needed, not None");
  // Real numbers only: numpy would drop a complex array's imaginary part and
  // parse strings holding numbers.
  const py::array plain = py::array::ensure(value);
  if (!plain) {
    PyErr_Clear();
    throw py::type_error(std::string(argument) + ": not an array of numbers");
  }
  const char kind = plain.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') {
    const std::string what = kind == 'c'                  ? "complex numbers"
                             : kind == 'U' || kind == 'S' ? "strings"
                             : kind == 'O'                ? "Python objects"
                                           : "dtype " + py::str(plain.dtype()).cast<std::string>();
    throw py::type_error(std::string(argument) + ": an array of real numbers is needed, not of " +
                         what);
  }
  FloatArray x = FloatArray::ensure(plain);  // null when numpy cannot convert it
  if (!x) {
    PyErr_Clear();
    throw py::type_error(std::string(argument) + ": not an array of numbers");
  }
  return x;
}

std::string shape_text(const py::array& x) {
  std::string s = "(";
  for (py::ssize_t k = 0; k < x.ndim(); ++k) s += (k ? ", " : "") + std::to_string(x.shape(k));
  return s + (x.ndim() == 1 ? ",)" : ")");
}

// One head's map [T, T] as an AttentionView over `storage` (checked like a capture's rows).
std::vector<float> one_map(const py::handle& value, const char* argument, int& T, bool& causal) {
  m::Capture c;
  FloatArray x = as_floats(value, argument);
  if (x.ndim() != 2 || x.shape(0) != x.shape(1) || x.shape(0) < 1)
    throw py::value_error(std::string(argument) + ": give one head's square map [T, T]; got shape " +
                          shape_text(x));
  c.layers = c.heads = 1;
  c.tokens = static_cast<int>(x.shape(0));
  c.attention.assign(x.data(), x.data() + x.size());
  try {
    m::capture_check(c, argument);
  } catch (const m::CaptureError& e) {
    throw py::value_error(e.what());
  }
  T = c.tokens;
  causal = c.causal;
  return std::move(c.attention);
}

// attention as analyze takes it: [L, H, T, T], a per-layer list or tuple of
// [B, H, T, T] (Hugging Face's output_attentions; batch row `batch`), or one
// head's [T, T].
m::Capture capture_of(const py::handle& attention, const py::handle& values,
                      const py::handle& tokens, int batch) {
  m::Capture c;
  std::vector<FloatArray> arrays;        // kept alive while their layers are copied
  std::vector<const float*> layerMaps;   // each layer's [H, T, T]
  std::vector<py::ssize_t> shape;        // [H, T, T] of every layer
  auto addLayer = [&](const float* p, py::ssize_t h, py::ssize_t t1, py::ssize_t t2, const py::array& x) {
    if (shape.empty()) shape = {h, t1, t2};
    if (shape != std::vector<py::ssize_t>{h, t1, t2})
      throw py::value_error("attention: the layers differ in shape (" + shape_text(x) + ")");
    layerMaps.push_back(p);
  };
  if (py::isinstance<py::tuple>(attention) || py::isinstance<py::list>(attention)) {
    const py::sequence seq = py::reinterpret_borrow<py::sequence>(attention);
    if (seq.size() == 0) throw py::value_error("attention: an empty sequence of layers");
    for (const py::handle& layer : seq) {
      FloatArray x = as_floats(layer, "attention");
      // A layer of [heads, T, T] (TransformerLens's cache, one sentence) is a batch of one.
      if (x.ndim() == 3)
        x = as_floats(x.reshape({py::ssize_t{1}, x.shape(0), x.shape(1), x.shape(2)}), "attention");
      if (x.ndim() != 4)
        throw py::value_error(
            "attention: each layer of the sequence is [batch, heads, T, T] "
            "(Hugging Face's output_attentions) or [heads, T, T] "
            "(TransformerLens); got shape " +
            shape_text(x));
      if (batch < 0 || batch >= x.shape(0))
        throw py::value_error("batch: " + std::to_string(batch) + " is outside the layers' batch of " +
                              std::to_string(x.shape(0)));
      const std::size_t map = static_cast<std::size_t>(x.shape(1) * x.shape(2) * x.shape(3));
      addLayer(x.data() + static_cast<std::size_t>(batch) * map, x.shape(1), x.shape(2), x.shape(3), x);
      arrays.push_back(std::move(x));
    }
  } else {
    FloatArray x = as_floats(attention, "attention");
    if (x.ndim() == 2) x = as_floats(x.reshape({py::ssize_t{1}, py::ssize_t{1}, x.shape(0), x.shape(1)}), "attention");
    if (x.ndim() != 4)
      throw py::value_error("attention: give [layers, heads, T, T], a sequence of [batch, heads, "
                            "T, T] per layer, or one head's [T, T]; got shape " + shape_text(x));
    const std::size_t map = static_cast<std::size_t>(x.shape(1) * x.shape(2) * x.shape(3));
    for (py::ssize_t l = 0; l < x.shape(0); ++l)
      addLayer(x.data() + static_cast<std::size_t>(l) * map, x.shape(1), x.shape(2), x.shape(3), x);
    arrays.push_back(std::move(x));
  }
  if (layerMaps.empty() || shape[0] < 1 || shape[1] < 1 || shape[1] != shape[2])
    throw py::value_error("attention: give square maps of at least one token and one head");
  c.layers = static_cast<int>(layerMaps.size());
  c.heads = static_cast<int>(shape[0]);
  c.tokens = static_cast<int>(shape[1]);
  if (c.layers > m::kCaptureMaxLayers || c.heads > m::kCaptureMaxHeads || c.tokens > m::kCaptureMaxTokens)
    throw py::value_error("attention: at most " + std::to_string(m::kCaptureMaxLayers) + " layers, " +
                          std::to_string(m::kCaptureMaxHeads) + " heads and " +
                          std::to_string(m::kCaptureMaxTokens) + " tokens");
  const std::size_t map = static_cast<std::size_t>(c.heads) * c.tokens * c.tokens;
  c.attention.reserve(map * layerMaps.size());
  for (const float* p : layerMaps) c.attention.insert(c.attention.end(), p, p + map);
  if (!values.is_none()) {
    FloatArray v = as_floats(values, "values");
    if (v.ndim() == 2 && c.layers == 1 && c.heads == 1)
      v = as_floats(v.reshape({py::ssize_t{1}, py::ssize_t{1}, v.shape(0), v.shape(1)}), "values");
    if (v.ndim() != 4 || v.shape(0) != c.layers || v.shape(1) != c.heads || v.shape(2) != c.tokens)
      throw py::value_error("values: give [" + std::to_string(c.layers) + ", " +
                            std::to_string(c.heads) + ", " + std::to_string(c.tokens) +
                            ", head_dim] to match attention; got shape " + shape_text(v));
    if (v.shape(3) < 1) throw py::value_error("values: head_dim is 0; give at least one component");
    c.headDim = static_cast<int>(v.shape(3));
    c.values.assign(v.data(), v.data() + v.size());
  }
  if (!tokens.is_none()) {
    // str only: bytes would be taken as raw bytes of any encoding.
    if (py::isinstance<py::str>(tokens) || py::isinstance<py::bytes>(tokens) ||
        !py::isinstance<py::sequence>(tokens))
      throw py::type_error("tokens: give a list of strings");
    for (const py::handle& t : py::reinterpret_borrow<py::sequence>(tokens)) {
      if (!py::isinstance<py::str>(t))
        throw py::type_error("tokens: give a list of strings (str), not " +
                             py::str(py::type::of(t).attr("__name__")).cast<std::string>());
      c.tokenText.push_back(utf8_of(t, "tokens: token " + std::to_string(c.tokenText.size())));
    }
    if (static_cast<int>(c.tokenText.size()) != c.tokens)
      throw py::value_error("tokens: " + std::to_string(c.tokenText.size()) +
                            " given for attention over " + std::to_string(c.tokens) +
                            " tokens; give one per position");
  }
  try {
    m::capture_check(c, "attention");
  } catch (const m::CaptureError& e) {
    throw py::value_error(e.what());
  }
  return c;
}

// True or False only: pybind11 would turn "no" into a cast error naming nothing.
bool flag(const py::handle& value, const std::string& name) {
  if (!py::isinstance<py::bool_>(value) &&
      !(py::isinstance(value, py::module_::import("numpy").attr("bool_"))))
    throw py::type_error(name + ": give True or False");
  return value.cast<bool>();
}

template <class T>
T take(const py::handle& value, const std::string& name, double lo, double hi) {
  double x;
  try {
    x = value.cast<double>();
  } catch (const py::cast_error&) {
    throw py::type_error(name + ": give a number");
  }
  if (!(x >= lo && x <= hi)) {
    std::ostringstream text;
    text << std::setprecision(15) << name << ": " << x << " is outside [" << lo << ", " << hi
         << "]";
    throw py::value_error(text.str());
  }
  if (std::is_integral_v<T> && x != std::floor(x)) throw py::value_error(name + ": give a whole number");
  return static_cast<T>(x);
}

std::string word(const py::handle& value, const std::string& name,
                 const std::vector<std::string>& allowed) {
  if (!py::isinstance<py::str>(value)) throw py::type_error(name + ": give a string");
  const std::string s = utf8_of(value, name);
  for (const std::string& w : allowed)
    if (w == s) return s;
  std::string list;
  for (const std::string& w : allowed) list += (list.empty() ? "" : ", ") + w;
  throw py::value_error(name + ": '" + s + "' is not one of " + list);
}

// The settings of metrics.md by their declared names (document::
// analysis_setting_specs, the ones Python takes), checked as declared.
d::AnalysisSettings settings_of(const py::kwargs& params) {
  d::AnalysisSettings s;
  s.weightSpectra = false;
  for (const auto& [key, value] : params) {
    const std::string k = utf8_of(key, "a parameter's name");
    const d::SettingSpec* spec = d::analysis_setting(k);
    if (!spec || !spec->python)
      throw py::type_error("analyze: no parameter '" + k + "' (" + d::python_setting_names() + ")");
    switch (spec->type) {
      case d::SettingType::Number:
        spec->setNumber(s, take<double>(value, k, spec->lo, spec->hi));
        break;
      case d::SettingType::Whole:
        spec->setNumber(s, spec->optional && value.is_none() ? -1.0
                                                             : static_cast<double>(take<long long>(
                                                                   value, k, spec->lo, spec->hi)));
        break;
      case d::SettingType::Word:
        spec->setWord(s, word(value, k, spec->words));
        break;
      case d::SettingType::Flag:
        spec->setNumber(s, flag(value, k) ? 1.0 : 0.0);
        break;
      case d::SettingType::NumberList: {
        std::vector<double> t;
        try {
          for (const py::handle& x : py::reinterpret_borrow<py::iterable>(value)) {
            if (t.size() == 32) throw py::value_error(k + ": give 1 to 32 " + k);
            t.push_back(take<double>(x, k, spec->lo, spec->hi));
          }
        } catch (const py::cast_error&) {
          throw py::type_error(k + ": give a sequence of numbers");
        }
        if (t.empty()) throw py::value_error(k + ": give 1 to 32 " + k);
        spec->setList(s, t);
        break;
      }
    }
  }
  return s;
}

// Runs `work` on a thread of its own while this one, holding the GIL between
// looks, hands `progress` (a Python callable or None) the fraction done and
// answers Ctrl-C: a pending KeyboardInterrupt stops the work at its next
// look (analysis::AnalysisStopped) and is raised here.
template <class Work>
auto with_progress_and_interrupts(const py::object& progress, Work work) {
  std::atomic<double> done{0.0};
  std::atomic<bool> stop{false};
  auto future = std::async(std::launch::async, [&] {
    return work([&](double fraction) {
      done = fraction;
      return !stop.load();
    });
  });
  double told = -1.0;
  for (;;) {
    bool finished = false;
    {
      py::gil_scoped_release free;
      finished = future.wait_for(std::chrono::milliseconds(100)) == std::future_status::ready;
    }
    if (PyErr_CheckSignals() != 0) {
      stop = true;
      try {
        future.get();
      } catch (const std::exception&) {
        // stopped, as asked: the interrupt is what the caller hears
      }
      throw py::error_already_set();
    }
    if (!progress.is_none() && done.load() != told) {
      told = done.load();
      progress(told);
    }
    if (finished) return future.get();
  }
}

py::list analyze(const py::handle& attention, const py::handle& values, const py::handle& tokens,
                 const std::string& model, int batch, const py::object& progress,
                 const py::kwargs& params) {
  d::AnalysisSettings settings = settings_of(params);
  m::Capture c = capture_of(attention, values, tokens, batch);
  c.model = model;
  if (settings.query >= c.tokens)
    throw py::value_error("query: " + std::to_string(settings.query) + " is outside the " +
                          std::to_string(c.tokens) + " tokens");
  if (!progress.is_none() && !PyCallable_Check(progress.ptr()))
    throw py::type_error("progress: give a callable taking the fraction done, or None");
  settings.provenance = {{"command", "sinkscope.analyze (Python)"}};
  const m::Trace trace = m::capture_trace(c);
  const d::AnalyzeSubject subject = d::analyze_subject_of(c, trace);
  std::vector<std::pair<std::string, std::string>> tables;
  try {
    tables = with_progress_and_interrupts(progress, [&](const auto& report) {
      return d::analyze_subject_csv(subject, settings, report);
    });
  } catch (const m::ModelRunError& e) {
    throw py::value_error(e.what());  // what was asked cannot be given (a bound, a place)
  }
  py::list out;
  for (const auto& [name, text] : tables) out.append(py::make_tuple(name, py::bytes(text)));
  return out;
}

// Every panel's views of one head, as the window draws them: JSON text.
std::string views(const py::handle& attention, const py::handle& values, const py::handle& tokens,
                  const std::string& model, int layer, int head, int query, double threshold,
                  const py::kwargs& params) {
  const d::AnalysisSettings settings = settings_of(params);
  m::Capture c = capture_of(attention, values, tokens, 0);
  c.model = model;
  const m::Trace trace = m::capture_trace(c);
  const d::AnalyzeSubject subject = d::analyze_subject_of(c, trace);
  try {
    py::gil_scoped_release free;
    const auto analysis = d::analyse_trace(trace, d::head_analysis_params(settings, trace.tokens()),
                                           {.settings = settings});
    return d::run_views_json(trace, *analysis, subject.tokens,
                             model.empty() ? std::string("capture") : model,
                             {layer, head, query, threshold})
        .dump();
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
}

// The run as one self-contained web page (what `analyze --html` writes): HTML text.
std::string web_page(const py::handle& attention, const py::handle& values,
                     const py::handle& tokens, const std::string& model, const std::string& text,
                     const py::kwargs& params) {
  d::AnalysisSettings settings = settings_of(params);
  settings.weightSpectra = false;  // a capture has no weights
  m::Capture c = capture_of(attention, values, tokens, 0);
  c.model = model;
  if (settings.query >= c.tokens)
    throw py::value_error("query: " + std::to_string(settings.query) + " is outside the " +
                          std::to_string(c.tokens) + " tokens");
  const m::Trace trace = m::capture_trace(c);
  const d::AnalyzeSubject subject = d::analyze_subject_of(c, trace);
  py::gil_scoped_release free;
  return d::web_page_of(subject, text,
                        {{"model", model.empty() ? std::string("unknown") : model},
                         {"command", "sinkscope.show (Python)"}},
                        settings);
}

py::tuple persistence(const py::handle& attention, bool symmetriseByMax) {
  int T = 0;
  bool causal = true;
  const std::vector<float> map = one_map(attention, "A", T, causal);
  a::PersistenceDiagram p;
  {
    py::gil_scoped_release free;
    const a::AttentionView view{map, T, causal};
    p = a::persistence_rips(a::attention_distances(view, {symmetriseByMax}), T);
  }
  auto bars = [](const std::vector<a::PersistenceBar>& list) {
    py::array_t<double> out({static_cast<py::ssize_t>(list.size()), py::ssize_t{2}});
    auto w = out.mutable_unchecked<2>();
    for (std::size_t k = 0; k < list.size(); ++k) {
      w(k, 0) = list[k].birth;
      w(k, 1) = list[k].death;
    }
    return out;
  };
  return py::make_tuple(bars(p.h0), bars(p.h1));
}

py::array_t<double> spectrum(const py::handle& attention, double theta, bool normalised) {
  if (!(theta >= 0 && theta <= 1)) throw py::value_error("theta: give a threshold in [0, 1]");
  int T = 0;
  bool causal = true;
  const std::vector<float> map = one_map(attention, "A", T, causal);
  a::GraphSpectrum g;
  {
    py::gil_scoped_release free;
    g = a::graph_spectrum({map, T, causal}, {theta, normalised, false});
  }
  return py::array_t<double>(static_cast<py::ssize_t>(g.eigenvalues.size()), g.eigenvalues.data());
}

py::array_t<double> sink_metric(const py::handle& attention) {
  int T = 0;
  bool causal = true;
  const std::vector<float> map = one_map(attention, "A", T, causal);
  const std::vector<double> alpha = a::sink_key_importance({map, T, causal});
  return py::array_t<double>(static_cast<py::ssize_t>(alpha.size()), alpha.data());
}

py::dict value_space(const py::handle& attention, const py::handle& values, int query, int topN) {
  int T = 0;
  bool causal = true;
  const std::vector<float> map = one_map(attention, "A", T, causal);
  FloatArray v = as_floats(values, "V");
  if (v.ndim() != 2 || v.shape(0) != T || v.shape(1) < 1)
    throw py::value_error("V: give the head's values [T, head_dim] with T = " + std::to_string(T) +
                          "; got shape " + shape_text(v));
  for (py::ssize_t k = 0; k < v.size(); ++k)
    if (!std::isfinite(v.data()[k])) throw py::value_error("V: holds a value that is not a number");
  if (query < -1 || query >= T) throw py::value_error("query: outside the " + std::to_string(T) + " tokens");
  if (topN < 1) throw py::value_error("N: give at least 1");
  a::ValueSpaceParams p;
  p.query = query;
  p.topN = topN;
  a::ValueSpace vs;
  {
    py::gil_scoped_release free;
    vs = a::value_space({map, T, causal}, std::span<const float>(v.data(), v.size()),
                        static_cast<int>(v.shape(1)), p);
  }
  py::dict out;
  out["precision"] = vs.scores.precision;
  out["recall"] = vs.scores.recall;
  out["f"] = vs.scores.f;
  out["random_f"] = vs.randomMean.f;
  out["selected"] = vs.selected;
  out["top_n"] = vs.topN;
  out["r_max"] = vs.rMax;
  out["r_min"] = vs.rMin;
  return out;
}

// A path as the file system will read it: Python strings may hold a NUL,
// where the system's calls would end the name ('victim.txt\0.npz' would
// replace victim.txt).
void require_no_nul(const std::string& path, const char* name) {
  if (path.find('\0') != std::string::npos)
    throw py::value_error(std::string(name) + ": holds a NUL character");
}

void save_capture(const std::string& path, const py::handle& attention, const py::handle& values,
                  const py::handle& tokens, const std::string& model, int batch, bool overwrite) {
  require_no_nul(path, "path");
  m::Capture c = capture_of(attention, values, tokens, batch);
  c.model = model;
  try {
    py::gil_scoped_release free;
    m::capture_write(c, path, overwrite);
  } catch (const std::runtime_error& e) {
    // The writer speaks to the command line; here the switch is an argument.
    std::string what = e.what();
    if (const auto at = what.find("use --force"); at != std::string::npos)
      what.replace(at, std::string("use --force").size(), "pass overwrite=True");
    throw py::value_error(what);
  }
}

// A run's arrays, kept by one shared trace: numpy arrays over the trace's own
// buffers where it holds them whole (logits, each layer's residual), copies
// gathered per layer otherwise (attention and friends are stored per layer).
struct PyRun {
  std::shared_ptr<const d::SentenceRun> run;
  std::string model;

  const m::Trace& trace() const { return *run->trace; }
  py::array_t<float> perLayer(const std::vector<float> m::LayerCapture::*field, bool square) const {
    const m::Trace& t = trace();
    const m::LayerCapture first = t.layer(0);
    const py::ssize_t L = t.layers(), H = t.heads(), T = t.tokens(),
                      d = square ? T : first.head_dim;
    py::array_t<float> out({L, H, T, d});
    float* w = out.mutable_data();
    for (int l = 0; l < L; ++l) {
      const m::LayerCapture c = l == 0 ? first : t.layer(l);
      const std::vector<float>& v = c.*field;
      std::copy(v.begin(), v.end(), w + static_cast<std::size_t>(l) * v.size());
    }
    return out;
  }
  py::array residual() const {
    const m::Trace& t = trace();
    const py::ssize_t T = t.tokens(), D = t.hiddenSize();
    py::array_t<float> out({py::ssize_t{t.layers() + 1}, T, D});
    for (int l = 0; l <= t.layers(); ++l) {
      const std::span<const float> r = t.residual(l);
      std::copy(r.begin(), r.end(), out.mutable_data() + static_cast<std::size_t>(l) * T * D);
    }
    return out;
  }
  py::array logits(py::object self) const {
    const std::vector<float>& v = trace().logits();
    const py::ssize_t T = trace().tokens();
    if (v.empty()) return py::array_t<float>(std::vector<py::ssize_t>{T, 0});
    // A view, no copy: the Run object keeps the trace alive; read-only, as
    // the run's own numbers are.
    py::array_t<float> view({T, static_cast<py::ssize_t>(v.size()) / T}, v.data(), self);
    view.attr("setflags")(py::arg("write") = false);
    return view;
  }
};

m::Intervention intervention_of(const py::kwargs& kw) {
  m::Intervention i;
  for (const auto& [key, value] : kw) {
    const std::string k = utf8_of(key, "an intervention's name");
    if (k == "drop_first") {
      i.dropFirstToken = flag(value, k);
    } else if (k == "ablate") {
      try {
        for (const auto& pair : value.cast<std::vector<std::pair<int, int>>>())
          i.ablateHeads.push_back({pair.first, pair.second});
      } catch (const py::cast_error&) {
        throw py::type_error("ablate: give (layer, head) pairs");
      }
    } else if (k == "remove_sinks") {
      if (flag(value, k)) i.removeSinks.push_back({});
    } else if (k == "rope_theta") {
      i.ropeTheta = take<double>(value, k, 1e-6, 1e30);
    } else if (k == "ntk_scale") {
      i.ntkScale = take<double>(value, k, 1e-6, 1e6);
    } else {
      throw py::type_error("run: no intervention '" + k +
                           "' (drop_first, remove_sinks, ablate, rope_theta, ntk_scale)");
    }
  }
  return i;
}

class PyModel {
 public:
  PyModel(const std::string& folder, py::object threads) {
    require_no_nul(folder, "folder");
    if (!threads.is_none()) m::set_cpu_threads(take<int>(threads, "threads", 1, 1024));
    try {
      py::gil_scoped_release free;
      loaded_ = m::loaded_model_open(folder);
    } catch (const m::ModelInputError& e) {
      throw py::value_error(e.what());
    } catch (const m::ModelRunError& e) {
      throw py::value_error(e.what());
    }
  }
  std::string name() const { return loaded_.name; }
  int layers() const { return loaded_.model->config().num_layers; }
  int heads() const { return loaded_.model->config().num_heads; }

  PyRun run(const py::object& sentence, const py::kwargs& interventions) const {
    if (!py::isinstance<py::str>(sentence)) throw py::type_error("text: give a string (str)");
    const std::string text = utf8_of(sentence, "text");
    const m::Intervention i = intervention_of(interventions);
    i.check_fits(layers(), heads());
    PyRun r;
    r.model = loaded_.name;
    try {
      py::gil_scoped_release free;
      // Products on one BLAS thread, as analyze and tensors run them.
      std::optional<m::SingleThreadedBlas> exact(std::in_place);
      const d::SentenceRun plain = d::sentence_run(loaded_, text);
      r.run = std::make_shared<const d::SentenceRun>(d::sentence_run_analysed(loaded_, plain, i));
    } catch (const m::ModelRunError& e) {
      throw py::value_error(e.what());
    } catch (const m::ModelInputError& e) {
      throw py::value_error(e.what());
    }
    return r;
  }

 private:
  m::LoadedModel loaded_;
};

}  // namespace

PYBIND11_MODULE(_core, module) {
  module.doc() = "SinkScope's analyses (the C++ core of the sinkscope package)";
  module.attr("__version__") = SINKSCOPE_VERSION;
  // OpenBLAS's kernels for this CPU as the programs choose them (it may fall
  // back to slower ones that round differently): numbers equal to theirs.
  m::fix_blas_core();
  module.def(
      "analysis_settings",
      [] {
        // The keyword arguments of analyze as declared once (their docstring is made from them).
        py::list out;
        for (const d::SettingSpec& spec : d::analysis_setting_specs()) {
          if (!spec.python) continue;
          py::dict one;
          one["name"] = spec.name;
          one["help"] = spec.help;
          one["paper"] = spec.paper;
          std::string shown = spec.optional ? std::string("None") : spec.defaultText();
          if (spec.type == d::SettingType::NumberList)
            for (double v : spec.list(d::AnalysisSettings{}))
              shown += (shown.empty() ? "" : ",") + sinkscope::io::csv_number(v);
          one["default"] = shown;
          one["kind"] = spec.type == d::SettingType::Number       ? "number"
                        : spec.type == d::SettingType::Whole      ? "whole number"
                        : spec.type == d::SettingType::Word       ? "one of " + spec.wordsText()
                        : spec.type == d::SettingType::NumberList ? "1 to 32 numbers"
                                                                  : "True or False";
          one["lo"] = spec.lo;
          one["hi"] = spec.hi;
          out.append(one);
        }
        return out;
      },
      "analyze's keyword arguments: name, help, paper, default, kind, lo, hi");
  module.def("analyze", &analyze, py::arg("attention"), py::arg("values") = py::none(),
             py::arg("tokens") = py::none(), py::arg("model") = "", py::arg("batch") = 0,
             py::arg("progress") = py::none());
  module.def("web_page", &web_page, py::arg("attention"), py::arg("values") = py::none(),
             py::arg("tokens") = py::none(), py::arg("model") = "", py::arg("text") = "");
  module.def("views", &views, py::arg("attention"), py::arg("values") = py::none(),
             py::arg("tokens") = py::none(), py::arg("model") = "", py::arg("layer") = 0,
             py::arg("head") = 0, py::arg("query") = -1, py::arg("threshold") = 0.05);
  module.def("persistence", &persistence, py::arg("A"), py::arg("symmetrise_by_max") = false);
  module.def("spectrum", &spectrum, py::arg("A"), py::arg("theta") = 0.05,
             py::arg("normalised") = false);
  module.def("sink_metric", &sink_metric, py::arg("A"));
  module.def("value_space", &value_space, py::arg("A"), py::arg("V"), py::arg("query") = -1,
             py::arg("N") = 3);
  py::class_<PyRun>(module, "Run",
                    "One sentence through a model: its arrays as `tensors` writes them")
      .def_property_readonly(
          "text", [](const PyRun& r) { return r.run->text; }, "the sentence that was run")
      .def_property_readonly("tokens", [](const PyRun& r) { return r.run->tokens.display; })
      .def_property_readonly("ids",
                             [](const PyRun& r) {
                               const auto& ids = r.trace().ids();
                               return py::array_t<int>(static_cast<py::ssize_t>(ids.size()),
                                                       ids.data());
                             })
      .def_property_readonly(
          "attention", [](const PyRun& r) { return r.perLayer(&m::LayerCapture::attention, true); },
          "[layers, heads, T, T], row = query")
      .def_property_readonly(
          "values", [](const PyRun& r) { return r.perLayer(&m::LayerCapture::values, false); },
          "[layers, heads, T, head_dim], of the KV group each head reads")
      .def_property_readonly(
          "queries", [](const PyRun& r) { return r.perLayer(&m::LayerCapture::queries, false); },
          "[layers, heads, T, head_dim], after RoPE")
      .def_property_readonly(
          "keys", [](const PyRun& r) { return r.perLayer(&m::LayerCapture::keys, false); },
          "[layers, heads, T, head_dim], after RoPE")
      .def_property_readonly("residual", &PyRun::residual,
                             "[layers + 1, T, hidden]: entering each layer, then the last output")
      .def_property_readonly(
          "logits", [](py::object self) { return self.cast<const PyRun&>().logits(self); },
          "[T, vocab] (a view of the run's own buffer)")
      .def_property_readonly("model", [](const PyRun& r) { return r.model; });
  py::class_<PyModel>(module, "Model", "A model folder or Hugging Face cache name, loaded once")
      .def(py::init<const std::string&, py::object>(), py::arg("folder_or_cache_name"),
           py::arg("threads") = py::none())
      .def_property_readonly("name", &PyModel::name)
      .def_property_readonly("layers", &PyModel::layers)
      .def_property_readonly("heads", &PyModel::heads)
      .def("run", &PyModel::run, py::arg("text"),
           "run(text, **interventions) -> Run: the sentence through the model, its arrays as\n"
           "`tensors` writes them (attention [L, H, T, T], values, queries, keys, residual,\n"
           "logits, tokens, ids). Interventions (keyword arguments, none by default):\n"
           "  drop_first=True      run without the first token (the BOS)\n"
           "  remove_sinks=True    mask each head's sink keys (found in the plain run)\n"
           "  ablate=[(layer, head), ...]   zero those heads' outputs\n"
           "  rope_theta=X         RoPE with base X instead of the model's\n"
           "  ntk_scale=S          NTK-aware RoPE scaling by S");
  module.def("save_capture", &save_capture, py::arg("path"), py::arg("attention"),
             py::arg("values") = py::none(), py::arg("tokens") = py::none(), py::arg("model") = "",
             py::arg("batch") = 0, py::arg("overwrite") = false);
}
