"""English stop words for the gazetteer, frozen so that importing it needs neither spaCy nor scikit-learn.

:data:`ENGLISH_STOPWORDS` is spaCy's ``spacy.lang.en.stop_words.STOP_WORDS`` union scikit-learn's
``sklearn.feature_extraction.text.ENGLISH_STOP_WORDS``, lower-cased: 353 words, copied from spaCy
3.8.18 and scikit-learn 1.9.1. Importing those two modules cost 3-5 s of every cold
``engram`` command (spaCy imports thinc, and thinc torch; issue 30), for a constant. A unit test
(tests/test_latency.py) checks the copy against both libraries, so an upgrade that changes either list fails there.
"""

from __future__ import annotations

#: English stop words (spaCy 3 ``STOP_WORDS`` | scikit-learn ``ENGLISH_STOP_WORDS``), lower case.
ENGLISH_STOPWORDS: frozenset[str] = frozenset("""
'd 'll 'm 're 's 've a about above across after afterwards again against all almost alone along already also
although always am among amongst amoungst amount an and another any anyhow anyone anything anyway anywhere are
around as at back be became because become becomes becoming been before beforehand behind being below beside
besides between beyond bill both bottom but by ca call can cannot cant co con could couldnt cry de describe
detail did do does doing done down due during each eg eight either eleven else elsewhere empty enough etc even
ever every everyone everything everywhere except few fifteen fifty fill find fire first five for former
formerly forty found four from front full further get give go had has hasnt have he hence her here hereafter
hereby herein hereupon hers herself him himself his how however hundred i ie if in inc indeed interest into is
it its itself just keep last latter latterly least less ltd made make many may me meanwhile might mill mine
more moreover most mostly move much must my myself n't name namely neither never nevertheless next nine no
nobody none noone nor not nothing now nowhere n‘t n’t of off often on once one only onto or other others
otherwise our ours ourselves out over own part per perhaps please put quite rather re really regarding same
say see seem seemed seeming seems serious several she should show side since sincere six sixty so some somehow
someone something sometime sometimes somewhere still such system take ten than that the their them themselves
then thence there thereafter thereby therefore therein thereupon these they thick thin third this those though
three through throughout thru thus to together too top toward towards twelve twenty two un under unless until
up upon us used using various very via was we well were what whatever when whence whenever where whereafter
whereas whereby wherein whereupon wherever whether which while whither who whoever whole whom whose why will
with within without would yet you your yours yourself yourselves ‘d ‘ll ‘m ‘re ‘s ‘ve ’d ’ll ’m ’re ’s ’ve
""".split())
